import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createKey, currentOrganizationId, NOT_FOUND, otherUser, permissionDenied } from './support.ts';

const INSUFFICIENT = permissionDenied('Your organization access level is insufficient.');
const NOT_PROJECT_ADMIN = permissionDenied("You don't have sufficient permissions in the project.");

const flag = (key: string) => ({ key, name: key, active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });

describe('projects and environments', () => {
  let t: TestApp;
  let organizationId: string;
  let project: Record<string, any>;
  let staging: Record<string, any>;
  before(async () => {
    t = await startTestApp();
    organizationId = await currentOrganizationId(t);
    const created = await t.request({ method: 'POST', url: `/api/organizations/${organizationId}/projects/`, payload: { name: 'Shop' } });
    assert.equal(created.statusCode, 201, created.body);
    project = created.json();
    const env = await t.request({
      method: 'POST',
      url: `/api/projects/${project.id}/environments/`,
      payload: { name: 'Staging', color: '#F5A623' },
    });
    assert.equal(env.statusCode, 201, env.body);
    staging = env.json();
  });
  after(() => t.close());

  test('a new project has one environment of its id; another environment gets its own id and tokens', async () => {
    assert.equal(project.project_id, project.id);
    assert.match(project.secret_api_token, /^phs_[^.]/);
    assert.notEqual(staging.id, project.id);
    assert.equal(staging.project_id, project.id);
    assert.equal(staging.color, '#f5a623');
    assert.match(staging.api_token, /^phc_/);
    assert.notEqual(staging.api_token, project.api_token);
    assert.match(staging.secret_api_token, /^phs_[^.]/, 'the secret in clear, once');

    const list = await t.request({ method: 'GET', url: `/api/projects/${project.id}/environments/` });
    assert.equal(list.statusCode, 200);
    assert.deepEqual(
      list.json().results.map((e: { id: number; name: string }) => [e.id, e.name]),
      [
        [project.id, 'Shop'],
        [staging.id, 'Staging'],
      ],
    );
    assert.match(list.json().results[1].secret_api_token, /^phs_\.\.\./, 'masked afterwards');
    // The same list from any environment of the project.
    const fromStaging = await t.request({ method: 'GET', url: `/api/projects/${staging.id}/environments/` });
    assert.equal(fromStaging.json().count, 2);
  });

  test("the organization's projects are projects, not environments; its teams are environments", async () => {
    const list = await t.request({ method: 'GET', url: `/api/organizations/${organizationId}/projects/` });
    const ids = list.json().results.map((p: { id: number }) => p.id);
    assert.ok(ids.includes(project.id));
    assert.ok(!ids.includes(staging.id));
    const all = await t.request({ method: 'GET', url: '/api/projects/' });
    assert.ok(!all.json().results.some((p: { id: number }) => p.id === staging.id));
    const organization = (await t.request({ method: 'GET', url: `/api/organizations/${organizationId}/` })).json();
    assert.ok(organization.teams.some((team: { id: number; project_id: number }) => team.id === staging.id && team.project_id === project.id));
    assert.ok(!organization.projects.some((p: { id: number }) => p.id === staging.id));
  });

  test('/api/environments/{id}/ serves every project route; each environment keeps its own flags', async () => {
    const made = await t.request({ method: 'POST', url: `/api/environments/${staging.id}/feature_flags/`, payload: flag('staging-only') });
    assert.equal(made.statusCode, 201, made.body);
    const inStaging = await t.request({ method: 'GET', url: `/api/environments/${staging.id}/feature_flags/` });
    assert.deepEqual(inStaging.json().results.map((f: { key: string }) => f.key), ['staging-only']);
    const viaProjects = await t.request({ method: 'GET', url: `/api/projects/${staging.id}/feature_flags/` });
    assert.equal(viaProjects.json().count, 1, 'the old prefix takes an environment id too');
    const inProduction = await t.request({ method: 'GET', url: `/api/environments/${project.id}/feature_flags/` });
    assert.equal(inProduction.json().count, 0);
    // The same key may live in each environment.
    const again = await t.request({ method: 'POST', url: `/api/environments/${project.id}/feature_flags/`, payload: flag('staging-only') });
    assert.equal(again.statusCode, 201, again.body);
    const token = await t.request({ method: 'PATCH', url: `/api/environments/${staging.id}/reset_token/` });
    assert.equal(token.statusCode, 200, token.body);
    assert.equal(token.json().id, staging.id);
  });

  test('a project is retrieved by its id only; an environment by its own', async () => {
    assert.equal((await t.request({ method: 'GET', url: `/api/projects/${staging.id}/` })).statusCode, 404);
    const env = await t.request({ method: 'GET', url: `/api/environments/${staging.id}/` });
    assert.equal(env.statusCode, 200);
    assert.equal(env.json().name, 'Staging');
    const byOrganization = await t.request({ method: 'GET', url: `/api/organizations/${organizationId}/projects/${project.id}/` });
    assert.equal(byOrganization.statusCode, 200);
    assert.equal(byOrganization.json().name, 'Shop');
    const elsewhere = await t.request({ method: 'GET', url: `/api/organizations/00000000-0000-4000-8000-000000000000/projects/${project.id}/` });
    assert.equal(elsewhere.statusCode, 404);
  });

  test('renaming: members may rename projects and environments; the project name is not the environment name', async () => {
    const member = await otherUser(t, organizationId, 'member');
    const renamed = await t.request({
      method: 'PATCH',
      url: `/api/organizations/${organizationId}/projects/${project.id}/`,
      payload: { name: 'Storefront' },
      key: member.key,
    });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json().name, 'Storefront');
    assert.equal((await t.request({ method: 'GET', url: `/api/environments/${project.id}/` })).json().name, 'Shop');
    const env = await t.request({ method: 'PATCH', url: `/api/environments/${project.id}/`, payload: { name: 'Production', color: '#D0021B' }, key: member.key });
    assert.equal(env.statusCode, 200, env.body);
    assert.equal(env.json().color, '#d0021b');
    const badColor = await t.request({ method: 'PATCH', url: `/api/environments/${project.id}/`, payload: { color: 'red' } });
    assert.equal(badColor.statusCode, 400);
    assert.equal(badColor.json().attr, 'color');
  });

  test('levels: members may not create or delete environments; the first environment goes only with its project', async () => {
    const member = await otherUser(t, organizationId, 'member');
    const create = await t.request({ method: 'POST', url: `/api/projects/${project.id}/environments/`, payload: { name: 'Dev' }, key: member.key });
    assert.equal(create.statusCode, 403);
    assert.deepEqual(create.json(), INSUFFICIENT);
    const del = await t.request({ method: 'DELETE', url: `/api/environments/${staging.id}/`, key: member.key });
    assert.equal(del.statusCode, 403);
    assert.deepEqual(del.json(), NOT_PROJECT_ADMIN);
    const first = await t.request({ method: 'DELETE', url: `/api/environments/${project.id}/` });
    assert.equal(first.statusCode, 400);
    assert.equal(first.json().code, 'first_environment');
    assert.equal((await t.request({ method: 'GET', url: `/api/environments/${project.id}/` })).statusCode, 200);
  });

  test("a key scoped to one environment reaches that environment only (scoped_teams are environments)", async () => {
    const scoped = await createKey(t, { label: 'staging', scopes: ['*'], scoped_teams: [staging.id] });
    const mine = await t.request({ method: 'GET', url: `/api/environments/${staging.id}/feature_flags/`, key: scoped.value });
    assert.equal(mine.statusCode, 200);
    const other = await t.request({ method: 'GET', url: `/api/environments/${project.id}/feature_flags/`, key: scoped.value });
    assert.equal(other.statusCode, 403);
    const list = await t.request({ method: 'GET', url: `/api/projects/${staging.id}/environments/`, key: scoped.value });
    assert.deepEqual(list.json().results.map((e: { id: number }) => e.id), [staging.id]);
  });

  test('set_current_team moves @current; an environment out of reach is refused as PostHog does', async () => {
    const moved = await t.request({ method: 'PATCH', url: '/api/users/@me/', payload: { set_current_team: staging.id } });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().team.id, staging.id);
    const current = await t.request({ method: 'GET', url: '/api/environments/@current/' });
    assert.equal(current.json().id, staging.id);
    const unknown = await t.request({ method: 'PATCH', url: '/api/users/@me/', payload: { set_current_team: 999999 } });
    assert.equal(unknown.statusCode, 400);
    assert.deepEqual(unknown.json(), {
      type: 'validation_error',
      code: 'does_not_exist',
      detail: 'Object with id=999999 does not exist.',
      attr: 'set_current_team',
    });
    await t.request({ method: 'PATCH', url: '/api/users/@me/', payload: { set_current_team: t.projectId } });
  });

  test('deleting a project deletes every environment of it, and their flags', async () => {
    const member = await otherUser(t, organizationId, 'member');
    const refused = await t.request({ method: 'DELETE', url: `/api/projects/${project.id}/`, key: member.key });
    assert.deepEqual(refused.json(), NOT_PROJECT_ADMIN);
    const del = await t.request({ method: 'DELETE', url: `/api/organizations/${organizationId}/projects/${project.id}/` });
    assert.equal(del.statusCode, 204, del.body);
    for (const id of [project.id, staging.id]) {
      const gone = await t.request({ method: 'GET', url: `/api/environments/${id}/` });
      assert.equal(gone.statusCode, 404);
      assert.deepEqual(gone.json(), NOT_FOUND);
    }
    const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM feature_flags WHERE project_id = ANY($1)', [[project.id, staging.id]]);
    assert.equal(rows[0].n, 0);
  });
});
