import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  createKey,
  createOrganization,
  createProject,
  currentOrganizationId,
  foreignOrganization,
  NO_PROJECT_ACCESS,
  NOT_FOUND,
  permissionDenied,
} from './support.ts';

describe('authentication, scopes and project access', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('no Authorization header → 401 not_authenticated', async () => {
    const res = await t.request({ method: 'GET', url: '/api/projects/1/', key: null });
    assert.equal(res.statusCode, 401);
    assert.deepEqual(res.json(), {
      type: 'authentication_error',
      code: 'not_authenticated',
      detail: 'Authentication credentials were not provided.',
      attr: null,
    });
  });

  test('unknown key → 401 authentication_failed', async () => {
    const res = await t.request({ method: 'GET', url: '/api/projects/1/', key: 'phx_doesnotexist' });
    assert.equal(res.statusCode, 401);
    assert.deepEqual(res.json(), {
      type: 'authentication_error',
      code: 'authentication_failed',
      detail: 'Personal API key found in request Authorization header is invalid.',
      attr: null,
    });
  });

  for (const header of ['Bearer', 'Bearer a b', `Token ${'x'.repeat(10)}`, 'phx_nobearerprefix']) {
    test(`malformed Authorization header "${header}" → 401 authentication_failed`, async () => {
      const res = await t.request({ method: 'GET', url: '/api/projects/1/', key: null, headers: { authorization: header } });
      assert.equal(res.statusCode, 401);
      const body = res.json();
      assert.equal(body.type, 'authentication_error');
      assert.equal(body.code, 'authentication_failed');
      assert.equal(body.attr, null);
    });
  }

  test('a valid key reaches its project', async () => {
    const res = await t.request({ method: 'GET', url: '/api/projects/1/' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().id, 1);
  });

  test('a key without the route scope → 403 naming the scope', async () => {
    const limited = await createKey(t, { label: 'flags only', scopes: ['feature_flag:read'] });
    const res = await t.request({ method: 'GET', url: '/api/projects/1/', key: limited.value });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), permissionDenied("API key missing required scope 'project:read'"));

    const write = await t.request({ method: 'PATCH', url: '/api/projects/1/', payload: { name: 'x' }, key: limited.value });
    assert.equal(write.statusCode, 403);
    assert.deepEqual(write.json(), permissionDenied("API key missing required scope 'project:write'"));

    // The scope is checked before the object: an unknown project is still a 403 for this key.
    const unknown = await t.request({ method: 'GET', url: '/api/projects/999999/', key: limited.value });
    assert.equal(unknown.statusCode, 403);
    assert.deepEqual(unknown.json(), permissionDenied("API key missing required scope 'project:read'"));
  });

  test('write implies read', async () => {
    const writer = await createKey(t, { label: 'project writer', scopes: ['project:write'] });
    const res = await t.request({ method: 'GET', url: '/api/projects/1/', key: writer.value });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().id, 1);
  });

  test('unknown project id → 404; a non-numeric id → 404', async () => {
    for (const id of ['999999', '2147483648', 'abc', '-1']) {
      const res = await t.request({ method: 'GET', url: `/api/projects/${id}/` });
      assert.equal(res.statusCode, 404, id);
      assert.deepEqual(res.json(), NOT_FOUND);
    }
  });

  test("a project of an organization the user isn't in → 403", async () => {
    const { projectId } = await foreignOrganization(t);
    const res = await t.request({ method: 'GET', url: `/api/projects/${projectId}/` });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), NO_PROJECT_ACCESS);
  });

  test('a project outside the key\'s scoped_teams → 403; inside → 200', async () => {
    const second = await createProject(t, { name: 'Second' });
    const scoped = await createKey(t, { label: 'second only', scopes: ['project:read'], scoped_teams: [second.id] });
    const outside = await t.request({ method: 'GET', url: '/api/projects/1/', key: scoped.value });
    assert.equal(outside.statusCode, 403);
    assert.deepEqual(outside.json(), permissionDenied('API key does not have access to the requested project: ID 1.'));
    const inside = await t.request({ method: 'GET', url: `/api/projects/${second.id}/`, key: scoped.value });
    assert.equal(inside.statusCode, 200);
    assert.equal(inside.json().id, second.id);
  });

  test("a project outside the key's scoped_organizations → 403", async () => {
    const organization = await createOrganization(t, 'Elsewhere');
    const project = await createProject(t, { name: 'Elsewhere project' }, `/api/organizations/${organization.id}/projects/`);
    const scoped = await createKey(t, { label: 'elsewhere', scopes: ['project:read'], scoped_organizations: [organization.id] });
    const outside = await t.request({ method: 'GET', url: '/api/projects/1/', key: scoped.value });
    assert.equal(outside.statusCode, 403);
    const defaultOrganization = (await t.request({ method: 'GET', url: '/api/projects/1/' })).json().organization;
    assert.deepEqual(outside.json(), permissionDenied(`API key does not have access to the requested organization: ID ${defaultOrganization}.`));
    const inside = await t.request({ method: 'GET', url: `/api/projects/${project.id}/`, key: scoped.value });
    assert.equal(inside.statusCode, 200);
    assert.equal(inside.json().organization, organization.id);
  });

  test("@current is the key's first scoped project, else the user's current project", async () => {
    const unscoped = await t.request({ method: 'GET', url: '/api/projects/@current/' });
    assert.equal(unscoped.statusCode, 200);
    assert.equal(unscoped.json().id, 1);

    const third = await createProject(t, { name: 'Third' });
    const scoped = await createKey(t, { label: 'third first', scopes: ['project:read'], scoped_teams: [third.id, 1] });
    const res = await t.request({ method: 'GET', url: '/api/projects/@current', key: scoped.value });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().id, third.id);
  });

  test('creating an organization (or a project) does not change @current', async () => {
    const organizationBefore = await currentOrganizationId(t);
    const created = await createOrganization(t, 'Yet another');
    await createProject(t, { name: 'In the new one' }, `/api/organizations/${created.id}/projects/`);
    await createProject(t, { name: 'In the current one' });

    const project = await t.request({ method: 'GET', url: '/api/projects/@current/' });
    assert.equal(project.statusCode, 200);
    assert.equal(project.json().id, 1);
    assert.equal(await currentOrganizationId(t), organizationBefore);
    assert.notEqual(created.id, organizationBefore);

    const me = await t.request({ method: 'GET', url: '/api/users/@me/' });
    assert.equal(me.statusCode, 200);
    assert.equal(me.json().team.id, 1);
    assert.equal(me.json().organization.id, organizationBefore);
  });
});
