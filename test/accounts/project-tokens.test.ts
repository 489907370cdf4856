// PATCH /api/projects/{id}/reset_token/ and /rotate_secret_token/: PostHog's paths and answers;
// the old token or secret is refused at once, by this process and by another one on the database.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createKey, currentOrganizationId, foreignOrganization, NOT_FOUND, otherUser, permissionDenied } from './support.ts';
import { eventually } from '../helpers/eventually.ts';

type Inject = (options: InjectOptions) => Promise<LightMyRequestResponse>;

const sdkFlags = (inject: Inject, token: string) =>
  inject({ method: 'POST', url: '/flags/?v=2', payload: { api_key: token, distinct_id: 'alice' } });
const ingest = (inject: Inject, token: string) =>
  inject({ method: 'POST', url: '/batch/', payload: { api_key: token, batch: [{ event: 'seen', distinct_id: 'alice', uuid: randomUUID() }] } });
const feed = (inject: Inject, token: string) => inject({ method: 'GET', url: `/api/surveys/?token=${token}` });
const definitions = (inject: Inject, secret: string) =>
  inject({ method: 'GET', url: '/api/feature_flag/local_evaluation', headers: { authorization: `Bearer ${secret}` } });

describe('project token reset and secret rotation', () => {
  let t: TestApp;
  let inject: Inject;
  let bPool: Pool;
  let b: FastifyInstance;
  before(async () => {
    t = await startTestApp();
    inject = (options) => t.app.inject(options);
    // A second process on the same database.
    bPool = createPool(t.db.url, 2);
    b = await buildApp({ pool: bPool, databaseUrl: t.db.url });
    await b.ready();
  });
  after(async () => {
    await b.close();
    await bPool.end();
    await t.close();
  });

  const project = async () => (await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/` })).json();

  test('reset_token: 200 with the project and its new token; the old one is refused everywhere at once', async () => {
    const before = await project();
    const old = before.api_token as string;
    // Warm every token cache in both processes.
    for (const app of [inject, (o: InjectOptions) => b.inject(o)] as Inject[]) {
      assert.equal((await sdkFlags(app, old)).statusCode, 200);
      assert.equal((await ingest(app, old)).statusCode, 200);
      assert.equal((await feed(app, old)).statusCode, 200);
    }

    const response = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/reset_token/` });
    assert.equal(response.statusCode, 200, response.body);
    const reset = response.json();
    assert.equal(reset.id, t.projectId);
    assert.equal(reset.name, before.name);
    assert.match(reset.api_token, /^phc_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(reset.api_token, old);
    assert.equal(reset.secret_api_token, before.secret_api_token, 'the secret is untouched and still masked');
    assert.equal((await project()).api_token, reset.api_token);

    assert.equal((await sdkFlags(inject, old)).statusCode, 401);
    assert.equal((await ingest(inject, old)).statusCode, 401);
    assert.equal((await feed(inject, old)).statusCode, 401);
    assert.equal((await sdkFlags(inject, reset.api_token)).statusCode, 200);
    assert.equal((await ingest(inject, reset.api_token)).statusCode, 200);
    assert.equal((await feed(inject, reset.api_token)).statusCode, 200);
    await eventually('the other process refusing the old token', async () => (await sdkFlags((o) => b.inject(o), old)).statusCode === 401);
    assert.equal((await ingest((o) => b.inject(o), old)).statusCode, 401);
    assert.equal((await sdkFlags((o) => b.inject(o), reset.api_token)).statusCode, 200);

    const { rows } = await t.db.pool.query(
      "SELECT scope, item_id, activity, user_id, detail FROM activity_log WHERE project_id = $1 AND scope = 'Team'",
      [t.projectId],
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0].item_id, String(t.projectId));
    assert.equal(rows[0].activity, 'updated');
    assert.notEqual(rows[0].user_id, null);
    assert.deepEqual(rows[0].detail.changes, [{ type: 'Team', action: 'changed', field: 'api_token', before: old, after: reset.api_token }]);
  });

  test('rotate_secret_token: the new secret in clear once, the old one refused at once, nothing in clear stored', async () => {
    const first = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/rotate_secret_token/` });
    assert.equal(first.statusCode, 200, first.body);
    const oldSecret = first.json().secret_api_token as string;
    assert.match(oldSecret, /^phs_[A-Za-z0-9_-]{43}$/);
    assert.equal((await definitions(inject, oldSecret)).statusCode, 200);
    assert.equal((await definitions((o) => b.inject(o), oldSecret)).statusCode, 200);

    const second = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/rotate_secret_token` });
    assert.equal(second.statusCode, 200, second.body);
    const rotated = second.json();
    assert.match(rotated.secret_api_token, /^phs_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(rotated.secret_api_token, oldSecret);
    assert.equal((await project()).secret_api_token, `phs_...${rotated.secret_api_token.slice(-4)}`, 'later reads are masked');

    assert.equal((await definitions(inject, oldSecret)).statusCode, 401);
    assert.equal((await definitions(inject, rotated.secret_api_token)).statusCode, 200);
    await eventually('the other process refusing the old secret', async () => (await definitions((o) => b.inject(o), oldSecret)).statusCode === 401);
    assert.equal((await definitions((o) => b.inject(o), rotated.secret_api_token)).statusCode, 200);

    const dump = await t.db.pool.query("SELECT string_agg(detail::text, ' ') AS text FROM activity_log");
    assert.ok(!dump.rows[0].text.includes(rotated.secret_api_token));
    assert.ok(!dump.rows[0].text.includes(oldSecret));
    const stored = await t.db.pool.query('SELECT row_to_json(p)::text AS text FROM projects p WHERE id = $1', [t.projectId]);
    assert.ok(!stored.rows[0].text.includes(rotated.secret_api_token));
    const entry = await t.db.pool.query(
      "SELECT detail FROM activity_log WHERE scope = 'Team' AND detail->'changes'->0->>'field' = 'secret_api_token' ORDER BY created_at DESC LIMIT 1",
    );
    assert.equal(entry.rows[0].detail.changes[0].after, `phs_...${rotated.secret_api_token.slice(-4)}`);
  });

  test('members, keys without project:write, other organizations and unknown ids are refused; nothing changes', async () => {
    const before = await project();
    const organizationId = await currentOrganizationId(t);
    const member = await otherUser(t, organizationId, 'member');
    const readOnly = await createKey(t, { label: 'read', scopes: ['project:read'] });
    const foreign = await foreignOrganization(t);
    for (const action of ['reset_token', 'rotate_secret_token']) {
      const url = `/api/projects/${t.projectId}/${action}/`;
      const asMember = await t.request({ method: 'PATCH', url, key: member.key });
      assert.equal(asMember.statusCode, 403, asMember.body);
      assert.deepEqual(asMember.json(), permissionDenied('Your organization access level is insufficient.'));
      const asReader = await t.request({ method: 'PATCH', url, key: readOnly.value });
      assert.deepEqual(asReader.json(), permissionDenied("API key missing required scope 'project:write'"));
      assert.equal((await t.request({ method: 'PATCH', url, key: null })).statusCode, 401);
      assert.equal((await t.request({ method: 'PATCH', url: `/api/projects/${foreign.projectId}/${action}/` })).statusCode, 403);
      const unknown = await t.request({ method: 'PATCH', url: `/api/projects/99999/${action}/` });
      assert.equal(unknown.statusCode, 404);
      assert.deepEqual(unknown.json(), NOT_FOUND);
    }
    const afterwards = await project();
    assert.equal(afterwards.api_token, before.api_token);
    assert.equal(afterwards.secret_api_token, before.secret_api_token);
  });

  test('an admin of the organization may; @current names the caller\'s project', async () => {
    const organizationId = await currentOrganizationId(t);
    const admin = await otherUser(t, organizationId, 'admin');
    const before = await project();
    const response = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/reset_token/`, key: admin.key });
    assert.equal(response.statusCode, 200, response.body);
    assert.notEqual(response.json().api_token, before.api_token);
    const current = await t.request({ method: 'PATCH', url: '/api/projects/@current/reset_token/' });
    assert.equal(current.statusCode, 200, current.body);
    assert.equal(current.json().id, t.projectId);
  });
});
