import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  createKey,
  createOrganization,
  createProject,
  currentOrganizationId,
  foreignOrganization,
  NOT_FOUND,
  otherUser,
  permissionDenied,
} from './support.ts';

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const INSUFFICIENT = permissionDenied('Your organization access level is insufficient.');
/** PostHog's answer to a member deleting a project: reading and renaming take membership, deleting an admin. */
const NOT_PROJECT_ADMIN = permissionDenied("You don't have sufficient permissions in the project.");

describe('projects', () => {
  let t: TestApp;
  let organizationId: string;
  before(async () => {
    t = await startTestApp();
    organizationId = await currentOrganizationId(t);
  });
  after(() => t.close());

  test('retrieve: the project body, secret token masked', async () => {
    const res = await t.request({ method: 'GET', url: '/api/projects/1' });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), [
      'api_token',
      'color',
      'created_at',
      'id',
      'name',
      'organization',
      'project_id',
      'secret_api_token',
      'timezone',
      'updated_at',
    ]);
    assert.equal(body.id, 1);
    assert.equal(body.name, 'Default project');
    assert.equal(body.organization, organizationId);
    assert.match(body.api_token, /^phc_/);
    assert.match(body.secret_api_token, /^phs_\.\.\..{4}$/);
    assert.equal(body.timezone, 'UTC');
    assert.match(body.created_at, ISO_UTC);
  });

  test('create: 201 with the secret token in clear once; stored hashed; later reads masked', async () => {
    const res = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: ' Web ', timezone: 'Europe/Berlin' } });
    assert.equal(res.statusCode, 201);
    const created = res.json();
    assert.equal(created.name, 'Web');
    assert.equal(created.organization, organizationId);
    assert.equal(created.timezone, 'Europe/Berlin');
    assert.match(created.secret_api_token, /^phs_[A-Za-z0-9_-]{43}$/);
    assert.match(created.api_token, /^phc_[A-Za-z0-9_-]{43}$/);
    assert.match(created.created_at, ISO_UTC);

    const again = await t.request({ method: 'GET', url: `/api/projects/${created.id}/` });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().secret_api_token, `phs_...${created.secret_api_token.slice(-4)}`);
    assert.equal(again.json().api_token, created.api_token);

    const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM projects p WHERE strpos(p::text, $1) > 0', [
      created.secret_api_token,
    ]);
    assert.equal(rows[0].n, 0);
    const list = await t.request({ method: 'GET', url: '/api/projects/' });
    assert.ok(!list.body.includes(created.secret_api_token));
  });

  test('create in a given organization: by path, by body; foreign organizations refused', async () => {
    const other = await createOrganization(t, 'Other org');
    const byPath = await createProject(t, { name: 'By path' }, `/api/organizations/${other.id}/projects/`);
    assert.equal(byPath.organization, other.id);
    const byBody = await createProject(t, { name: 'By body', organization: other.id });
    assert.equal(byBody.organization, other.id);
    const current = await createProject(t, { name: 'By @current' }, '/api/organizations/@current/projects');
    assert.equal(current.organization, organizationId);

    const foreign = await foreignOrganization(t);
    const viaPath = await t.request({ method: 'POST', url: `/api/organizations/${foreign.organizationId}/projects/`, payload: { name: 'x' } });
    assert.equal(viaPath.statusCode, 404);
    assert.deepEqual(viaPath.json(), NOT_FOUND);
    const badPath = await t.request({ method: 'POST', url: '/api/organizations/nope/projects/', payload: { name: 'x' } });
    assert.equal(badPath.statusCode, 404);
    // The organization is checked before the body.
    const badBody = await t.request({ method: 'POST', url: `/api/organizations/${foreign.organizationId}/projects/`, payload: {} });
    assert.equal(badBody.statusCode, 404);
    assert.deepEqual(badBody.json(), NOT_FOUND);
    const viaBody = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'x', organization: foreign.organizationId } });
    assert.equal(viaBody.statusCode, 400);
    assert.deepEqual(viaBody.json(), {
      type: 'validation_error',
      code: 'does_not_exist',
      detail: `Invalid pk "${foreign.organizationId}" - object does not exist.`,
      attr: 'organization',
    });
    const malformed = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'x', organization: 'abc' } });
    assert.equal(malformed.statusCode, 400);
    assert.equal(malformed.json().attr, 'organization');
  });

  test('create: validation of name and timezone', async () => {
    const cases: [object, string][] = [
      [{}, 'name'],
      [{ name: '  ' }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ name: 'ok', timezone: 'Mars/Olympus' }, 'timezone'],
    ];
    for (const [payload, attr] of cases) {
      const res = await t.request({ method: 'POST', url: '/api/projects/', payload });
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().type, 'validation_error');
      assert.equal(res.json().attr, attr);
    }
  });

  test('create needs project:write; a key scoped to projects may not create', async () => {
    const reader = await createKey(t, { label: 'reader', scopes: ['project:read'] });
    const denied = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'x' }, key: reader.value });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), permissionDenied("API key missing required scope 'project:write'"));

    const scoped = await createKey(t, { label: 'scoped', scopes: ['project:write'], scoped_teams: [1] });
    const refused = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'x' }, key: scoped.value });
    assert.equal(refused.statusCode, 403);
    assert.deepEqual(refused.json(), permissionDenied('API keys with scoped projects are only supported on project-based endpoints.'));
  });

  test('a member may read and rename, but not create or delete projects', async () => {
    const member = await otherUser(t, organizationId, 'member');
    const get = await t.request({ method: 'GET', url: '/api/projects/1/', key: member.key });
    assert.equal(get.statusCode, 200);
    const create = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'x', organization: organizationId }, key: member.key });
    assert.equal(create.statusCode, 403);
    assert.deepEqual(create.json(), INSUFFICIENT);
    const victim = await createProject(t, { name: 'Victim' });
    const del = await t.request({ method: 'DELETE', url: `/api/projects/${victim.id}/`, key: member.key });
    assert.equal(del.statusCode, 403);
    assert.deepEqual(del.json(), NOT_PROJECT_ADMIN);
    const patch = await t.request({ method: 'PATCH', url: `/api/projects/${victim.id}/`, payload: { name: 'Renamed' }, key: member.key });
    assert.equal(patch.statusCode, 200);
    assert.equal(patch.json().name, 'Renamed');

    const admin = await otherUser(t, organizationId, 'admin');
    const adminCreate = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'By admin' }, key: admin.key });
    assert.equal(adminCreate.statusCode, 201);
    assert.equal(adminCreate.json().organization, organizationId);
    // The admin had no current project: their first project becomes it (a user who has one keeps it).
    const current = await t.request({ method: 'GET', url: '/api/projects/@current/', key: admin.key });
    assert.equal(current.statusCode, 200);
    assert.equal(current.json().id, adminCreate.json().id);
  });

  test('list: the projects the key reaches, paginated', async () => {
    const all = await t.request({ method: 'GET', url: '/api/projects/' });
    assert.equal(all.statusCode, 200);
    const ids = all.json().results.map((p: { id: number }) => p.id);
    assert.equal(all.json().count, ids.length);
    assert.ok(ids.includes(1));
    assert.deepEqual([...ids].sort((a: number, b: number) => a - b), ids);
    const foreign = await foreignOrganization(t);
    const after = await t.request({ method: 'GET', url: '/api/projects/' });
    assert.ok(!after.json().results.some((p: { id: number }) => p.id === foreign.projectId));
    assert.equal(after.json().count, ids.length);

    const scoped = await createKey(t, { label: 'one', scopes: ['project:read'], scoped_teams: [1] });
    const refused = await t.request({ method: 'GET', url: '/api/projects/', key: scoped.value });
    assert.equal(refused.statusCode, 403, 'a key limited to projects reads them one by one, never as a list');
    assert.equal(refused.json().detail, 'API keys with scoped projects are only supported on project-based endpoints.');
  });

  test('update: name and timezone; bad values → 400 naming the field; unknown → 404', async () => {
    const project = await createProject(t, { name: 'To update' });
    const res = await t.request({ method: 'PATCH', url: `/api/projects/${project.id}/`, payload: { name: 'Updated', timezone: 'America/New_York' } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().name, 'Updated');
    assert.equal(res.json().timezone, 'America/New_York');
    assert.equal(res.json().secret_api_token, `phs_...${project.secret_api_token.slice(-4)}`);
    const read = await t.request({ method: 'GET', url: `/api/projects/${project.id}/` });
    assert.equal(read.json().name, 'Updated');

    const empty = await t.request({ method: 'PATCH', url: `/api/projects/${project.id}/`, payload: {} });
    assert.equal(empty.statusCode, 200);
    assert.equal(empty.json().name, 'Updated');

    for (const [payload, attr] of [[{ name: '' }, 'name'], [{ timezone: 'Nowhere/Land' }, 'timezone'], [{ name: 5 }, 'name']] as const) {
      const bad = await t.request({ method: 'PATCH', url: `/api/projects/${project.id}/`, payload });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().type, 'validation_error');
      assert.equal(bad.json().attr, attr);
    }
    const unknown = await t.request({ method: 'PATCH', url: '/api/projects/987654/', payload: { name: 'x' } });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), NOT_FOUND);
  });

  test('delete: 204, the project and its data are gone, then 404', async () => {
    const project = await createProject(t, { name: 'Doomed' });
    await t.db.pool.query("INSERT INTO feature_flags (project_id, key) VALUES ($1, 'doomed-flag')", [project.id]);
    const res = await t.request({ method: 'DELETE', url: `/api/projects/${project.id}/` });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const gone = await t.request({ method: 'GET', url: `/api/projects/${project.id}/` });
    assert.equal(gone.statusCode, 404);
    assert.deepEqual(gone.json(), NOT_FOUND);
    const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM feature_flags WHERE project_id = $1', [project.id]);
    assert.equal(rows[0].n, 0);
    const again = await t.request({ method: 'DELETE', url: `/api/projects/${project.id}/` });
    assert.equal(again.statusCode, 404);
  });

  test("deleting the user's current project moves @current to another project of the organization", async () => {
    const organization = await createOrganization(t, 'Moving');
    const a = await createProject(t, { name: 'A' }, `/api/organizations/${organization.id}/projects/`);
    const b = await createProject(t, { name: 'B' }, `/api/organizations/${organization.id}/projects/`);
    const user = await otherUser(t, organization.id, 'owner');
    await t.db.pool.query('UPDATE users SET current_project_id = $1 WHERE id = $2', [a.id, user.userId]);
    const before = await t.request({ method: 'GET', url: '/api/projects/@current/', key: user.key });
    assert.equal(before.json().id, a.id);
    const del = await t.request({ method: 'DELETE', url: `/api/projects/${a.id}/`, key: user.key });
    assert.equal(del.statusCode, 204);
    const afterDelete = await t.request({ method: 'GET', url: '/api/projects/@current/', key: user.key });
    assert.equal(afterDelete.statusCode, 200);
    assert.equal(afterDelete.json().id, b.id);
  });
});
