// A personal API key limited to projects (`scoped_teams`) or organizations (`scoped_organizations`)
// reaches nothing outside them: every route that is not about one project refuses a key limited
// to projects (PostHog's refusal), and a key limited to organizations cannot touch another
// organization's routes or projects. The route list is read from the app itself, so a new route
// must be classified here before this file passes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions, RouteOptions } from 'fastify';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createKey, createOrganization, createProject, currentOrganizationId, otherUser, permissionDenied } from './support.ts';

const SCOPED_PROJECTS_ONLY = permissionDenied('API keys with scoped projects are only supported on project-based endpoints.');
const outsideOrganization = (id: string) => permissionDenied(`API key does not have access to the requested organization: ID ${id}.`);

let t: TestApp;
const routes: RouteOptions[] = [];
let orgA: string;
let orgB: string;
let projectB: number;
let memberUuid: string;
let inviteId: string;

before(async () => {
  t = await startTestApp({ onRoute: (route) => routes.push(route) });
  orgA = await currentOrganizationId(t);
  orgB = (await createOrganization(t, 'Organization B')).id;
  projectB = (await createProject(t, { name: 'In B' }, `/api/organizations/${orgB}/projects/`)).id;
  const member = await otherUser(t, orgA, 'member');
  memberUuid = (await t.request({ method: 'GET', url: '/api/users/@me/', key: member.key })).json().uuid;
  const invite = await t.request({ method: 'POST', url: `/api/organizations/${orgA}/invites/`, payload: { target_email: 'invitee@a.test' } });
  assert.equal(invite.statusCode, 201, invite.body);
  inviteId = invite.json().id;
});
after(() => t.close());

type Sample = (organizationId: string) => InjectOptions;

/**
 * Every authenticated route without `{project_id}`: the organization-level ones (refused to a key
 * limited to projects), with a request that would otherwise succeed or fail on its own merits.
 */
const ORGANIZATION_LEVEL: Record<string, Sample> = {
  'GET /api/organizations': () => ({ method: 'GET', url: '/api/organizations/' }),
  'POST /api/organizations': () => ({ method: 'POST', url: '/api/organizations/', payload: { name: 'Another' } }),
  'GET /api/organizations/:organization_id': (org) => ({ method: 'GET', url: `/api/organizations/${org}/` }),
  'GET /api/organizations/:organization_id/members': (org) => ({ method: 'GET', url: `/api/organizations/${org}/members/` }),
  'PATCH /api/organizations/:organization_id/members/:user_uuid': (org) => ({
    method: 'PATCH',
    url: `/api/organizations/${org}/members/${memberUuid}/`,
    payload: { level: 15 },
  }),
  'DELETE /api/organizations/:organization_id/members/:user_uuid': (org) => ({ method: 'DELETE', url: `/api/organizations/${org}/members/${memberUuid}/` }),
  'POST /api/organizations/:organization_id/members/:user_uuid/password_reset_link': (org) => ({
    method: 'POST',
    url: `/api/organizations/${org}/members/${memberUuid}/password_reset_link/`,
    payload: {},
  }),
  'GET /api/organizations/:organization_id/invites': (org) => ({ method: 'GET', url: `/api/organizations/${org}/invites/` }),
  'POST /api/organizations/:organization_id/invites': (org) => ({
    method: 'POST',
    url: `/api/organizations/${org}/invites/`,
    payload: { target_email: 'outsider@b.test', level: 15 },
  }),
  'DELETE /api/organizations/:organization_id/invites/:invite_id': (org) => ({ method: 'DELETE', url: `/api/organizations/${org}/invites/${inviteId}/` }),
  'GET /api/organizations/:organization_id/projects': (org) => ({ method: 'GET', url: `/api/organizations/${org}/projects/` }),
  'POST /api/organizations/:organization_id/projects': (org) => ({ method: 'POST', url: `/api/organizations/${org}/projects/`, payload: { name: 'New' } }),
  'POST /api/organizations/:organization_id/feature_flags/copy_flags': (org) => ({
    method: 'POST',
    url: `/api/organizations/${org}/feature_flags/copy_flags/`,
    payload: { feature_flag_key: 'nothing-here', from_project: 1, target_project_ids: [1] },
  }),
  'GET /api/organizations/:organization_id/feature_flags/copy_flags': (org) => ({ method: 'GET', url: `/api/organizations/${org}/feature_flags/copy_flags/` }),
  'PUT /api/organizations/:organization_id/feature_flags/copy_flags': (org) => ({ method: 'PUT', url: `/api/organizations/${org}/feature_flags/copy_flags/`, payload: {} }),
  'PATCH /api/organizations/:organization_id/feature_flags/copy_flags': (org) => ({ method: 'PATCH', url: `/api/organizations/${org}/feature_flags/copy_flags/`, payload: {} }),
  'DELETE /api/organizations/:organization_id/feature_flags/copy_flags': (org) => ({ method: 'DELETE', url: `/api/organizations/${org}/feature_flags/copy_flags/` }),
  'GET /api/projects': () => ({ method: 'GET', url: '/api/projects/' }),
  'POST /api/projects': () => ({ method: 'POST', url: '/api/projects/', payload: { name: 'New' } }),
};

/** The caller's own account: any valid key may use them, as PostHog exempts `/api/users/@me/`. */
const ACCOUNT: Record<string, () => InjectOptions> = {
  'GET /api/users/@me': () => ({ method: 'GET', url: '/api/users/@me/' }),
  'PATCH /api/users/@me': () => ({ method: 'PATCH', url: '/api/users/@me/', payload: { first_name: 'Still me' } }),
  'GET /api/personal_api_keys': () => ({ method: 'GET', url: '/api/personal_api_keys/' }),
  'POST /api/personal_api_keys': () => ({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'narrower', scopes: ['feature_flag:read'], scoped_teams: [1] } }),
  'GET /api/personal_api_keys/@current': () => ({ method: 'GET', url: '/api/personal_api_keys/@current/' }),
  'GET /api/personal_api_keys/:id': () => ({ method: 'GET', url: '/api/personal_api_keys/00000000-0000-4000-8000-000000000000/' }),
  'DELETE /api/personal_api_keys/:id': () => ({ method: 'DELETE', url: '/api/personal_api_keys/00000000-0000-4000-8000-000000000000/' }),
};

function authenticatedRoutesOutsideProjects(): string[] {
  const names = routes
    .filter((route) => !(route.config as { public?: boolean } | undefined)?.public && !route.url.includes(':project_id'))
    .flatMap((route) => (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD').map((m) => `${m} ${route.url}`));
  return [...new Set(names)].sort();
}

const invitesOfA = async () => (await t.db.pool.query('SELECT target_email, level FROM organization_invites ORDER BY target_email')).rows;
const levelOfMember = async () =>
  (await t.db.pool.query('SELECT m.level FROM organization_memberships m JOIN users u ON u.id = m.user_id WHERE u.uuid = $1', [memberUuid])).rows[0]?.level;

describe('the routes not about one project', () => {
  test('are all classified here: organization-level or the caller\'s own account', () => {
    assert.deepEqual(authenticatedRoutesOutsideProjects(), [...Object.keys(ORGANIZATION_LEVEL), ...Object.keys(ACCOUNT)].sort());
  });
});

describe('a key limited to projects (scoped_teams)', () => {
  for (const [name, sample] of Object.entries(ORGANIZATION_LEVEL)) {
    test(`${name} → 403, PostHog's refusal, nothing written`, async () => {
      const key = await createKey(t, { label: 'project 1 only', scopes: ['*'], scoped_teams: [1] });
      const invitesBefore = await invitesOfA();
      const response = await t.request({ ...sample(orgA), key: key.value });
      assert.equal(response.statusCode, 403, response.body);
      assert.deepEqual(response.json(), SCOPED_PROJECTS_ONLY);
      assert.deepEqual(await invitesOfA(), invitesBefore);
      assert.equal(await levelOfMember(), 'member');
    });
  }

  test('the same requests with an unscoped `*` key are not refused (the refusal above is the key\'s limit)', async () => {
    for (const [name, sample] of Object.entries(ORGANIZATION_LEVEL)) {
      if (name.startsWith('DELETE') || name.includes('PATCH /api/organizations/:organization_id/members')) continue;
      const response = await t.request(sample(orgA));
      assert.notEqual(response.statusCode, 403, `${name}: ${response.body}`);
    }
  });

  for (const [name, sample] of Object.entries(ACCOUNT)) {
    test(`${name} (the caller's own account) is answered`, async () => {
      const key = await createKey(t, { label: 'project 1 only', scopes: ['*'], scoped_teams: [1] });
      const response = await t.request({ ...sample(), key: key.value });
      assert.ok([200, 201, 404].includes(response.statusCode), `${name}: ${response.statusCode} ${response.body}`);
    });
  }

  test('its own project is reached; another project of the organization is not, with PostHog\'s words', async () => {
    const key = await createKey(t, { label: 'project 1 only', scopes: ['*'], scoped_teams: [1] });
    assert.equal((await t.request({ method: 'GET', url: '/api/projects/1/feature_flags/', key: key.value })).statusCode, 200);
    const other = await createProject(t, { name: 'Beside 1' });
    const refused = await t.request({ method: 'GET', url: `/api/projects/${other.id}/feature_flags/`, key: key.value });
    assert.equal(refused.statusCode, 403);
    assert.deepEqual(refused.json(), permissionDenied(`API key does not have access to the requested project: ID ${other.id}.`));
  });
});

describe('a key limited to organization A (scoped_organizations)', () => {
  for (const [name, sample] of Object.entries(ORGANIZATION_LEVEL)) {
    if (!name.includes(':organization_id')) continue;
    test(`${name} on organization B → 403; on A (reads and creations) → not refused`, async () => {
      const key = await createKey(t, { label: 'A only', scopes: ['*'], scoped_organizations: [orgA] });
      const refused = await t.request({ ...sample(orgB), key: key.value });
      assert.equal(refused.statusCode, 403, refused.body);
      assert.deepEqual(refused.json(), outsideOrganization(orgB));
      assert.equal(await levelOfMember(), 'member');
      if (name.startsWith('DELETE') || name.startsWith('PATCH')) return;
      const inA = await t.request({ ...sample(orgA), key: key.value });
      assert.notEqual(inA.statusCode, 403, `${name}: ${inA.body}`);
    });
  }

  test("organization B's projects: 403 on every project route; the lists and @current stay in A", async () => {
    const key = await createKey(t, { label: 'A only', scopes: ['*'], scoped_organizations: [orgA] });
    for (const url of [`/api/projects/${projectB}/`, `/api/projects/${projectB}/feature_flags/`, `/api/projects/${projectB}/surveys/`]) {
      const response = await t.request({ method: 'GET', url, key: key.value });
      assert.equal(response.statusCode, 403, url);
      assert.deepEqual(response.json(), outsideOrganization(orgB));
    }
    const create = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'Sneaky', organization: orgB }, key: key.value });
    assert.equal(create.statusCode, 403, create.body);
    assert.deepEqual(create.json(), outsideOrganization(orgB));
    const organizations = await t.request({ method: 'GET', url: '/api/organizations/', key: key.value });
    assert.deepEqual(organizations.json().results.map((o: { id: string }) => o.id), [orgA]);
    const projects = await t.request({ method: 'GET', url: '/api/projects/', key: key.value });
    assert.ok(!projects.json().results.some((p: { id: number }) => p.id === projectB));
    const current = await t.request({ method: 'GET', url: '/api/organizations/@current/', key: key.value });
    assert.equal(current.json().id, orgA);
  });
});
