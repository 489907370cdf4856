import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createKey, createOrganization, createProject, currentOrganizationId, foreignOrganization, NOT_FOUND, permissionDenied } from './support.ts';

describe('organizations', () => {
  let t: TestApp;
  let defaultOrganization: string;
  let foreign: { organizationId: string; projectId: number };
  before(async () => {
    t = await startTestApp();
    defaultOrganization = await currentOrganizationId(t);
    foreign = await foreignOrganization(t);
  });
  after(() => t.close());

  test("the list holds only the user's organizations, with their projects", async () => {
    const res = await t.request({ method: 'GET', url: '/api/organizations/' });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.count, 1);
    assert.equal(body.next, null);
    assert.equal(body.previous, null);
    assert.equal(body.results.length, 1);
    const [organization] = body.results;
    assert.equal(organization.id, defaultOrganization);
    assert.equal(organization.name, 'Default organization');
    assert.equal(organization.membership_level, 15);
    assert.equal(organization.member_count, 1);
    assert.deepEqual(organization.projects, [{ id: 1, organization_id: defaultOrganization, name: 'Default project' }]);
    assert.equal(organization.teams[0].id, 1);
    assert.match(organization.teams[0].api_token, /^phc_/);
    assert.match(organization.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  test('retrieve by id and by @current; unknown, foreign and malformed ids → 404', async () => {
    const byId = await t.request({ method: 'GET', url: `/api/organizations/${defaultOrganization}/` });
    assert.equal(byId.statusCode, 200);
    assert.equal(byId.json().id, defaultOrganization);
    const current = await t.request({ method: 'GET', url: '/api/organizations/@current' });
    assert.equal(current.statusCode, 200);
    assert.deepEqual(current.json(), byId.json());

    for (const id of [foreign.organizationId, '00000000-0000-4000-8000-000000000000', 'not-a-uuid', '1']) {
      const res = await t.request({ method: 'GET', url: `/api/organizations/${id}/` });
      assert.equal(res.statusCode, 404, id);
      assert.deepEqual(res.json(), NOT_FOUND);
    }
  });

  test('create: 201, the caller is owner, @current stays', async () => {
    const res = await t.request({ method: 'POST', url: '/api/organizations/', payload: { name: '  Acme Inc  ' } });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.match(body.id, /^[0-9a-f-]{36}$/);
    assert.equal(body.name, 'Acme Inc');
    assert.equal(body.slug, 'acme-inc');
    assert.equal(body.membership_level, 15);
    assert.equal(body.member_count, 1);
    assert.deepEqual(body.teams, []);
    assert.deepEqual(body.projects, []);

    assert.equal(await currentOrganizationId(t), defaultOrganization);
    const list = await t.request({ method: 'GET', url: '/api/organizations' });
    assert.equal(list.json().count, 2);
    assert.deepEqual(list.json().results.map((o: { id: string }) => o.id), [defaultOrganization, body.id]);
    const fetched = await t.request({ method: 'GET', url: `/api/organizations/${body.id}` });
    assert.equal(fetched.statusCode, 200);
    assert.equal(fetched.json().name, 'Acme Inc');
  });

  test('create: name required, not blank, at most 64 characters', async () => {
    const cases: [unknown, string][] = [
      [{}, 'required'],
      [{ name: '' }, 'blank'],
      [{ name: '   ' }, 'blank'],
      [{ name: 'x'.repeat(65) }, 'max_length'],
      [{ name: 42 }, 'invalid_input'],
    ];
    for (const [payload, code] of cases) {
      const res = await t.request({ method: 'POST', url: '/api/organizations/', payload: payload as object });
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      const body = res.json();
      assert.equal(body.type, 'validation_error');
      assert.equal(body.code, code, JSON.stringify(payload));
      assert.equal(body.attr, 'name');
    }
  });

  test('create needs organization:write (or *)', async () => {
    const reader = await createKey(t, { label: 'reader', scopes: ['organization:read', 'project:write'] });
    const denied = await t.request({ method: 'POST', url: '/api/organizations/', payload: { name: 'No' }, key: reader.value });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), permissionDenied("API key missing required scope 'organization:write'"));

    const writer = await createKey(t, { label: 'writer', scopes: ['organization:write'] });
    const created = await t.request({ method: 'POST', url: '/api/organizations/', payload: { name: 'Yes' }, key: writer.value });
    assert.equal(created.statusCode, 201);
    assert.equal(created.json().name, 'Yes');
  });

  test('a key limited to projects or organizations cannot create organizations', async () => {
    const scoped = await createKey(t, { label: 'scoped', scopes: ['*'], scoped_teams: [1] });
    const res = await t.request({ method: 'POST', url: '/api/organizations/', payload: { name: 'No' }, key: scoped.value });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().code, 'permission_denied');
  });

  test("scoped_organizations narrows the list and the retrieval; a key with scoped_teams lists none", async () => {
    const other = await createOrganization(t, 'Scoped');
    const project = await createProject(t, { name: 'Scoped project' }, `/api/organizations/${other.id}/projects/`);
    const byOrganization = await createKey(t, { label: 'org', scopes: ['organization:read'], scoped_organizations: [other.id] });

    const list = await t.request({ method: 'GET', url: '/api/organizations/', key: byOrganization.value });
    assert.equal(list.statusCode, 200);
    assert.equal(list.json().count, 1);
    assert.equal(list.json().results[0].id, other.id);
    assert.deepEqual(list.json().results[0].projects.map((p: { id: number }) => p.id), [project.id]);

    const outside = await t.request({ method: 'GET', url: `/api/organizations/${defaultOrganization}/`, key: byOrganization.value });
    assert.equal(outside.statusCode, 403);
    assert.deepEqual(outside.json(), permissionDenied(`API key does not have access to the requested organization: ID ${defaultOrganization}.`));
    const current = await t.request({ method: 'GET', url: '/api/organizations/@current/', key: byOrganization.value });
    assert.equal(current.statusCode, 200);
    assert.equal(current.json().id, other.id);

    const extra = await createProject(t, { name: 'Not in scope' });
    const byTeam = await createKey(t, { label: 'team', scopes: ['organization:read'], scoped_teams: [1] });
    const teamList = await t.request({ method: 'GET', url: '/api/organizations/', key: byTeam.value });
    assert.equal(teamList.statusCode, 403, 'a key limited to projects lists no organization');
    assert.deepEqual(teamList.json(), permissionDenied('API keys with scoped projects are only supported on project-based endpoints.'));
    const unscoped = await t.request({ method: 'GET', url: `/api/organizations/${defaultOrganization}/` });
    assert.ok(unscoped.json().projects.some((p: { id: number }) => p.id === extra.id));
  });

  test('organization reads need organization:read', async () => {
    const flags = await createKey(t, { label: 'flags', scopes: ['feature_flag:write'] });
    const res = await t.request({ method: 'GET', url: '/api/organizations/', key: flags.value });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), permissionDenied("API key missing required scope 'organization:read'"));
  });
});
