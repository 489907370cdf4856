import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createKey, createOrganization, createProject, currentOrganizationId, permissionDenied } from './support.ts';

describe('users/@me', () => {
  let t: TestApp;
  let organizationId: string;
  before(async () => {
    t = await startTestApp();
    organizationId = await currentOrganizationId(t);
  });
  after(() => t.close());

  test('the caller with their current organization, project and organizations', async () => {
    const res = await t.request({ method: 'GET', url: '/api/users/@me/' });
    assert.equal(res.statusCode, 200);
    const me = res.json();
    assert.equal(me.id, 1);
    assert.match(me.uuid, /^[0-9a-f-]{36}$/);
    assert.equal(typeof me.distinct_id, 'string');
    assert.equal(me.email, 'admin@bellwether.local');
    assert.equal(me.first_name, 'Admin');
    assert.equal(me.last_name, '');
    assert.equal(me.is_email_verified, false);
    assert.match(me.date_joined, /Z$/);
    assert.equal(me.organization.id, organizationId);
    assert.equal(me.organization.membership_level, 15);
    assert.equal(me.team.id, 1);
    assert.equal(me.team.organization, organizationId);
    assert.match(me.team.api_token, /^phc_/);
    assert.deepEqual(me.organizations, [
      { id: organizationId, name: 'Default organization', slug: 'default-organization', logo_media_id: null, membership_level: 15 },
    ]);
  });

  test('follows the key: its first scoped project is the team; organizations narrowed', async () => {
    const organization = await createOrganization(t, 'Second');
    const project = await createProject(t, { name: 'There' }, `/api/organizations/${organization.id}/projects/`);
    const key = await createKey(t, { label: 'there', scopes: ['user:read'], scoped_teams: [project.id] });
    const res = await t.request({ method: 'GET', url: '/api/users/@me', key: key.value });
    assert.equal(res.statusCode, 200);
    const me = res.json();
    assert.equal(me.team.id, project.id);
    assert.equal(me.organization.id, organization.id);
    assert.deepEqual(me.organizations.map((o: { id: string }) => o.id), [organization.id]);

    const unscoped = await t.request({ method: 'GET', url: '/api/users/@me' });
    assert.equal(unscoped.json().team.id, 1);
    assert.equal(unscoped.json().organizations.length, 2);
  });

  test('needs user:read', async () => {
    const key = await createKey(t, { label: 'flags', scopes: ['feature_flag:read'] });
    const res = await t.request({ method: 'GET', url: '/api/users/@me/', key: key.value });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), permissionDenied("API key missing required scope 'user:read'"));
  });
});
