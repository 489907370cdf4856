import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import createClient, { type Client } from 'openapi-fetch';
import type { OpenApiDocument } from '../../src/openapi/document.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import type { paths } from '../../web/src/api/generated/api.d.ts';
import { documentedStatuses, operationFor, servedDocument } from './served-document.ts';

/**
 * A client generated from the document (openapi-typescript types, openapi-fetch) drives a flag and
 * a survey through their whole life over HTTP; every status it meets must be documented for its
 * operation. `npm run typecheck` checks the calls against the generated types.
 */
let t: TestApp;
let document: OpenApiDocument;
let api: Client<paths>;
let projectId: string;
const observed: { method: string; path: string; status: number }[] = [];

before(async () => {
  t = await startTestApp();
  document = await servedDocument(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  api = createClient<paths>({ baseUrl: `http://127.0.0.1:${port}`, headers: { authorization: `Bearer ${t.key}` } });
  api.use({
    onResponse({ request, response }) {
      observed.push({ method: request.method, path: new URL(request.url).pathname, status: response.status });
    },
  });
  projectId = String(t.projectId);
});
after(async () => {
  await t.close();
});

test('a flag: create with filters and variants, list, retrieve, patch, put, enable, disable, soft delete; DELETE answers 405', async () => {
  const path = { project_id: projectId };
  const created = await api.POST('/api/projects/{project_id}/feature_flags', {
    params: { path },
    body: {
      key: 'checkout-redesign',
      name: 'Checkout redesign',
      filters: {
        groups: [
          { properties: [{ key: 'email', type: 'person', operator: 'icontains', value: '@example.com' }], rollout_percentage: 50 },
          { properties: [], rollout_percentage: 100, variant: 'treatment' },
        ],
        multivariate: {
          variants: [
            { key: 'control', name: 'Control', rollout_percentage: 50 },
            { key: 'treatment', rollout_percentage: 50 },
          ],
        },
        payloads: { treatment: '{"color":"green"}' },
      },
    },
  });
  assert.equal(created.response.status, 201, JSON.stringify(created.error));
  const flag = created.data;
  assert.ok(flag);
  assert.equal(flag.key, 'checkout-redesign');
  assert.deepEqual(flag.filters.multivariate?.variants.map((variant) => variant.key), ['control', 'treatment']);
  assert.equal(flag.filters.payloads?.treatment, '{"color":"green"}');
  const item = { project_id: projectId, id: String(flag.id) };

  const duplicate = await api.POST('/api/projects/{project_id}/feature_flags', { params: { path }, body: { key: 'checkout-redesign' } });
  assert.equal(duplicate.response.status, 400);
  assert.equal(duplicate.error?.type, 'validation_error');
  assert.equal(duplicate.error?.attr, 'key');

  const listed = await api.GET('/api/projects/{project_id}/feature_flags', { params: { path, query: { key: 'checkout-redesign' } } });
  assert.equal(listed.response.status, 200);
  assert.deepEqual(listed.data?.results.map((result) => result.id), [flag.id]);
  assert.equal(listed.data?.count, 1);

  const retrieved = await api.GET('/api/projects/{project_id}/feature_flags/{id}', { params: { path: item } });
  assert.equal(retrieved.data?.name, 'Checkout redesign');

  const patched = await api.PATCH('/api/projects/{project_id}/feature_flags/{id}', { params: { path: item }, body: { name: 'Checkout, redesigned' } });
  assert.equal(patched.response.status, 200);
  assert.equal(patched.data?.name, 'Checkout, redesigned');
  assert.equal(patched.data?.filters.multivariate?.variants.length, 2, 'a PATCH keeps what it does not name');

  const put = await api.PUT('/api/projects/{project_id}/feature_flags/{id}', {
    params: { path: item },
    body: { key: 'checkout-redesign', name: 'Checkout', filters: { groups: [{ properties: [], rollout_percentage: 20 }] } },
  });
  assert.equal(put.response.status, 200, JSON.stringify(put.error));
  assert.equal(put.data?.rollout_percentage, 20);
  assert.equal(put.data?.filters.multivariate ?? null, null);

  const stale = await api.PATCH('/api/projects/{project_id}/feature_flags/{id}', {
    params: { path: item, header: { 'if-match': `"${flag.version}"` } },
    body: { name: 'too late' },
  });
  assert.equal(stale.response.status, 409);
  assert.equal(stale.error?.code, 'conflict');

  const disabled = await api.POST('/api/projects/{project_id}/feature_flags/{id}/disable', { params: { path: item } });
  assert.equal(disabled.data?.active, false);
  const enabled = await api.POST('/api/projects/{project_id}/feature_flags/{id}/enable', { params: { path: item } });
  assert.equal(enabled.data?.active, true);

  const deleted = await api.PATCH('/api/projects/{project_id}/feature_flags/{id}', { params: { path: item }, body: { deleted: true } });
  assert.equal(deleted.data?.deleted, true);
  const afterDelete = await api.GET('/api/projects/{project_id}/feature_flags', { params: { path } });
  assert.ok(!afterDelete.data?.results.some((result) => result.id === flag.id), 'a soft-deleted flag leaves the list');

  const refused = await api.DELETE('/api/projects/{project_id}/feature_flags/{id}', { params: { path: item } });
  assert.equal(refused.response.status, 405);
  assert.equal(refused.response.headers.get('allow'), 'GET, PATCH, HEAD, OPTIONS');
  const kept = await api.GET('/api/projects/{project_id}/feature_flags/{id}', { params: { path: item } });
  assert.equal(kept.response.status, 200, 'DELETE removed nothing');

  const missing = await api.GET('/api/projects/{project_id}/feature_flags/{id}', { params: { path: { project_id: projectId, id: '2147483647' } } });
  assert.equal(missing.response.status, 404);
  assert.equal(missing.error?.code, 'not_found');
});

test('a survey: create with several question types, update, put, launch, stop, archive, responses, delete 204', async () => {
  const path = { project_id: projectId };
  const created = await api.POST('/api/projects/{project_id}/surveys', {
    params: { path },
    body: {
      name: 'Checkout feedback',
      type: 'popover',
      questions: [
        { type: 'open', question: 'What could be better?', id: 'q-open', validation: [{ type: 'min_length', value: 3 }] },
        { type: 'single_choice', question: 'Did you find it?', choices: ['Yes', 'No'] },
        { type: 'multiple_choice', question: 'What did you buy?', choices: ['Shoes', 'Hats', 'Other'], hasOpenChoice: true },
        { type: 'rating', question: 'How likely are you to recommend us?', scale: 10, display: 'number', lowerBoundLabel: 'Unlikely', upperBoundLabel: 'Very likely' },
        { type: 'link', question: 'Book a call', link: 'https://example.com/call', buttonText: 'Book' },
      ],
      appearance: { thankYouMessageHeader: 'Thanks!', displayThankYouMessage: true },
      conditions: { url: '/checkout', urlMatchType: 'icontains' },
    },
  });
  assert.equal(created.response.status, 201, JSON.stringify(created.error));
  const survey = created.data;
  assert.ok(survey);
  assert.deepEqual(survey.questions?.map((question) => question.type), ['open', 'single_choice', 'multiple_choice', 'rating', 'link']);
  const item = { project_id: projectId, id: survey.id };

  const invalid = await api.POST('/api/projects/{project_id}/surveys', { params: { path }, body: { name: 'No type', type: 'popover', questions: [{ question: '' }] } });
  assert.equal(invalid.response.status, 400);
  assert.equal(invalid.error?.attr, 'questions');

  const patched = await api.PATCH('/api/projects/{project_id}/surveys/{id}', { params: { path: item }, body: { description: 'After checkout' } });
  assert.equal(patched.data?.description, 'After checkout');

  const put = await api.PUT('/api/projects/{project_id}/surveys/{id}', {
    params: { path: item },
    body: { name: 'Checkout feedback', type: 'popover', questions: [{ type: 'open', question: 'Anything else?', id: 'q-open' }] },
  });
  assert.equal(put.response.status, 200, JSON.stringify(put.error));
  assert.equal(put.data?.questions?.length, 1);

  const launched = await api.POST('/api/projects/{project_id}/surveys/{id}/launch', { params: { path: item } });
  assert.equal(launched.response.status, 200);
  assert.ok(launched.data?.start_date);
  const twice = await api.POST('/api/projects/{project_id}/surveys/{id}/launch', { params: { path: item } });
  assert.equal(twice.response.status, 400);

  const project = await api.GET('/api/projects/{project_id}', { params: { path } });
  const token = project.data?.api_token;
  assert.ok(token);
  const sent = await api.POST('/batch', {
    body: {
      api_key: token,
      batch: [
        {
          event: 'survey sent',
          distinct_id: 'respondent-1',
          uuid: randomUUID(),
          properties: { $survey_id: survey.id, $survey_submission_id: randomUUID(), $survey_completed: true, '$survey_response_q-open': 'Faster, please' },
        },
      ],
    },
  });
  assert.equal(sent.response.status, 200);

  const stopped = await api.POST('/api/projects/{project_id}/surveys/{id}/stop', { params: { path: item } });
  assert.ok(stopped.data?.end_date);

  const responses = await api.GET('/api/projects/{project_id}/surveys/{id}/responses', { params: { path: item } });
  assert.equal(responses.response.status, 200);
  const page = responses.data;
  assert.ok(page && typeof page !== 'string', 'JSON unless ?format=csv');
  assert.deepEqual(page.results.map((response) => response.distinct_id), ['respondent-1']);

  const archived = await api.PATCH('/api/projects/{project_id}/surveys/{id}', { params: { path: item }, body: { archived: true } });
  assert.equal(archived.data?.archived, true);

  const deleted = await api.DELETE('/api/projects/{project_id}/surveys/{id}', { params: { path: item } });
  assert.equal(deleted.response.status, 204);
  const gone = await api.GET('/api/projects/{project_id}/surveys/{id}', { params: { path: item } });
  assert.equal(gone.response.status, 404);
});

test('flag definitions for local evaluation revalidate with their ETag (304)', async () => {
  const path = { project_id: projectId };
  const first = await api.GET('/api/projects/{project_id}/feature_flags/local_evaluation', { params: { path } });
  assert.equal(first.response.status, 200);
  const etag = first.response.headers.get('etag');
  assert.ok(etag);
  const again = await api.GET('/api/projects/{project_id}/feature_flags/local_evaluation', { params: { path }, headers: { 'if-none-match': etag } });
  assert.equal(again.response.status, 304);
});

test('every status the client met is documented for its operation', () => {
  assert.ok(observed.length > 20);
  const undocumented = observed.filter(({ method, path, status }) => {
    const found = operationFor(document, method, path);
    return !found || !documentedStatuses(found.operation).includes(status);
  });
  assert.deepEqual(undocumented, []);
});
