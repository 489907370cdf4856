// Endpoints PostHog's own tools call first: the key's own description and an organization's projects.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { givePassword, signIn } from '../helpers/session.ts';
import { createKey, createOrganization, createProject, currentOrganizationId, foreignOrganization, NOT_FOUND } from './support.ts';

describe('GET /api/personal_api_keys/@current', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('answers the calling key, masked, whatever its scopes (even none of user:read)', async () => {
    const narrow = await createKey(t, { label: 'flags only', scopes: ['feature_flag:read'], scoped_teams: [t.projectId] });
    const response = await t.request({ method: 'GET', url: '/api/personal_api_keys/@current/', key: narrow.value });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.id, narrow.id);
    assert.equal(body.label, 'flags only');
    assert.deepEqual(body.scopes, ['feature_flag:read']);
    assert.deepEqual(body.scoped_teams, [t.projectId]);
    assert.deepEqual(body.scoped_organizations, []);
    assert.match(body.mask_value, /^phx_\.\.\./);
    assert.ok(!JSON.stringify(body).includes(narrow.value), 'never the value');

    const star = await t.request({ method: 'GET', url: '/api/personal_api_keys/@current' });
    assert.equal(star.statusCode, 200);
    assert.deepEqual(star.json().scopes, ['*']);
    assert.deepEqual([star.json().scoped_teams, star.json().scoped_organizations], [[], []], 'unscoped: empty lists, never null');
  });

  test('no key → 401; an unknown key → 401; a console session has no key → 404', async () => {
    assert.equal((await t.request({ method: 'GET', url: '/api/personal_api_keys/@current/', key: null })).statusCode, 401);
    assert.equal((await t.request({ method: 'GET', url: '/api/personal_api_keys/@current/', key: 'phx_nope' })).statusCode, 401);
    await givePassword(t);
    const session = await signIn(t);
    const bySession = await session.request({ method: 'GET', url: '/api/personal_api_keys/@current/' });
    assert.equal(bySession.statusCode, 404);
    assert.deepEqual(bySession.json(), NOT_FOUND);
  });
});

describe('GET /api/organizations/{id}/projects/', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test("the organization's projects the key reaches, paginated; @current works", async () => {
    const organizationId = await currentOrganizationId(t);
    const second = await createProject(t, { name: 'Second' });
    const elsewhere = await createOrganization(t, 'Elsewhere');
    await createProject(t, { name: 'Not here' }, `/api/organizations/${elsewhere.id}/projects/`);

    const response = await t.request({ method: 'GET', url: `/api/organizations/${organizationId}/projects/` });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().count, 2);
    assert.deepEqual(response.json().results.map((p: { id: number }) => p.id), [t.projectId, second.id]);
    assert.match(response.json().results[0].secret_api_token, /^phs_\.\.\./);
    const current = await t.request({ method: 'GET', url: '/api/organizations/@current/projects/?limit=1' });
    assert.equal(current.json().count, 2);
    assert.equal(current.json().results.length, 1);
    assert.ok(current.json().next);

    const scoped = await createKey(t, { label: 'one project', scopes: ['project:read'], scoped_teams: [second.id] });
    const refused = await t.request({ method: 'GET', url: `/api/organizations/${organizationId}/projects/`, key: scoped.value });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().detail, 'API keys with scoped projects are only supported on project-based endpoints.');
  });

  test('scope, unknown and foreign organizations', async () => {
    const organizationId = await currentOrganizationId(t);
    const flagsOnly = await createKey(t, { label: 'flags', scopes: ['feature_flag:read'] });
    const refused = await t.request({ method: 'GET', url: `/api/organizations/${organizationId}/projects/`, key: flagsOnly.value });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().detail, "API key missing required scope 'project:read'");
    const foreign = await foreignOrganization(t);
    assert.equal((await t.request({ method: 'GET', url: `/api/organizations/${foreign.organizationId}/projects/` })).statusCode, 404);
    assert.equal((await t.request({ method: 'GET', url: '/api/organizations/00000000-0000-4000-8000-000000000000/projects/' })).statusCode, 404);
    assert.equal((await t.request({ method: 'GET', url: '/api/organizations/not-a-uuid/projects/' })).statusCode, 404);
  });
});
