// Organization members: list, level changes by PostHog's rules, removal and leaving (sessions end at
// once, keys stop reaching the organization), the last owner, scopes, CSRF and other organizations.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateSecret, PERSONAL_KEY_PREFIX } from '../../src/accounts/auth/keys.ts';
import { insertPersonalApiKey } from '../../src/accounts/personal-api-keys/store.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { givePassword, personWithPassword, signIn, type SignedIn } from '../helpers/session.ts';
import { createKey, currentOrganizationId, foreignOrganization, NOT_FOUND, NO_PROJECT_ACCESS, permissionDenied } from './support.ts';
import { inUnit } from '../helpers/database.ts';

let t: TestApp;
let orgId: string;
let ownerUuid: string;

before(async () => {
  t = await startTestApp();
  orgId = await currentOrganizationId(t);
  await givePassword(t);
  ownerUuid = (await t.request({ method: 'GET', url: '/api/users/@me/' })).json().uuid;
});
after(() => t.close());

interface Person {
  userId: number;
  uuid: string;
  email: string;
  key: string;
  session: SignedIn;
}

async function person(level: 'member' | 'admin' | 'owner'): Promise<Person> {
  const { userId, email } = await personWithPassword(t, orgId, level);
  const key = generateSecret(PERSONAL_KEY_PREFIX);
  await inUnit(t.db.pool, (tx) => insertPersonalApiKey(tx, { userId, label: 'k', value: key, scopes: ['*'], scopedTeams: null, scopedOrganizations: null }));
  const { rows } = await t.db.pool.query<{ uuid: string }>('SELECT uuid FROM users WHERE id = $1', [userId]);
  return { userId, uuid: rows[0].uuid, email, key, session: await signIn(t, email) };
}

const membersUrl = (uuid = '') => `/api/organizations/${orgId}/members/${uuid ? `${uuid}/` : ''}`;

function patchLevel(as: string | SignedIn, uuid: string, level: unknown) {
  const options = { method: 'PATCH' as const, url: membersUrl(uuid), payload: { level } };
  return typeof as === 'string' ? t.request({ ...options, key: as }) : as.request(options);
}

function remove(as: string | SignedIn, uuid: string) {
  const options = { method: 'DELETE' as const, url: membersUrl(uuid) };
  return typeof as === 'string' ? t.request({ ...options, key: as }) : as.request(options);
}

async function levelOf(userId: number): Promise<string | null> {
  const { rows } = await t.db.pool.query('SELECT level FROM organization_memberships WHERE organization_id = $1 AND user_id = $2', [orgId, userId]);
  return rows[0]?.level ?? null;
}

describe('GET members', () => {
  test("PostHog's member shape, paginated; any member may list", async () => {
    const member = await person('member');
    const response = await t.request({ method: 'GET', url: `${membersUrl()}?limit=1`, key: member.key });
    assert.equal(response.statusCode, 200, response.body);
    const page = response.json();
    assert.ok(page.count >= 2);
    assert.equal(page.results.length, 1);
    assert.match(page.next, /limit=1&offset=1$/);
    const owner = page.results[0];
    assert.deepEqual(Object.keys(owner).sort(), ['has_password', 'has_social_auth', 'id', 'is_2fa_enabled', 'joined_at', 'last_login', 'level', 'updated_at', 'user']);
    assert.equal(owner.user.uuid, ownerUuid);
    assert.equal(owner.user.email, 'admin@bellwether.local');
    assert.equal(owner.level, 15);
    assert.equal(owner.is_2fa_enabled, false);
    assert.match(owner.id, /^[0-9a-f-]{36}$/);
    const all = (await t.request({ method: 'GET', url: '/api/organizations/@current/members/' })).json();
    assert.equal(all.results.find((m: { user: { uuid: string } }) => m.user.uuid === member.uuid).level, 1);
  });

  test("another organization's members: 404; a key without organization_member:read: 403", async () => {
    const foreign = await foreignOrganization(t);
    const response = await t.request({ method: 'GET', url: `/api/organizations/${foreign.organizationId}/members/` });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(response.json(), NOT_FOUND);
    const key = await createKey(t, { label: 'flags', scopes: ['feature_flag:read'] });
    const denied = await t.request({ method: 'GET', url: membersUrl(), key: key.value });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), permissionDenied("API key missing required scope 'organization_member:read'"));
  });
});

describe('PATCH a member level', () => {
  test('an owner promotes a member to admin (200, stored); the new level applies to their session at once', async () => {
    const member = await person('member');
    const before = await member.session.request({ method: 'POST', url: `/api/organizations/${orgId}/invites/`, payload: { target_email: 'x1@example.com' } });
    assert.equal(before.statusCode, 403, 'a member cannot invite');
    const response = await patchLevel(t.key, member.uuid, 8);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().level, 8);
    assert.equal(response.json().user.uuid, member.uuid);
    assert.equal(await levelOf(member.userId), 'admin');
    const after = await member.session.request({ method: 'POST', url: `/api/organizations/${orgId}/invites/`, payload: { target_email: 'x1@example.com' } });
    assert.equal(after.statusCode, 201, after.body);
  });

  test("PostHog's rules: members edit nobody; nobody edits themselves, someone above them, or raises above their own level", async () => {
    const member = await person('member');
    const admin = await person('admin');
    const other = await person('member');
    const cases: [Person, string, number, string][] = [
      [member, other.uuid, 8, 'You can only edit others if you are an admin.'],
      [member, other.uuid, 1, 'You can only edit others if you are an admin.'],
      [admin, admin.uuid, 1, "You can't change your own access level."],
      [admin, ownerUuid, 8, 'You can only edit others with level lower or equal to you.'],
      [admin, other.uuid, 15, "You can only make another member owner if you're this organization's owner."],
    ];
    for (const [actor, target, level, detail] of cases) {
      for (const as of [actor.key, actor.session]) {
        const response = await patchLevel(as, target, level);
        assert.equal(response.statusCode, 403, `${detail}: ${response.body}`);
        assert.deepEqual(response.json(), permissionDenied(detail));
      }
    }
    assert.equal(await levelOf(other.userId), 'member');
    assert.equal(await levelOf(admin.userId), 'admin');
  });

  test('a level that is not 1, 8 or 15: 400 on level; unknown or malformed uuids and other organizations: 404', async () => {
    const member = await person('member');
    for (const level of [0, 5, 16, '8', null]) {
      const response = await patchLevel(t.key, member.uuid, level);
      assert.equal(response.statusCode, 400, String(level));
      assert.equal(response.json().attr, 'level');
    }
    assert.equal((await patchLevel(t.key, '00000000-0000-4000-8000-000000000000', 8)).statusCode, 404);
    assert.equal((await patchLevel(t.key, 'not-a-uuid', 8)).statusCode, 404);
    const foreign = await foreignOrganization(t);
    const elsewhere = await t.request({ method: 'PATCH', url: `/api/organizations/${foreign.organizationId}/members/${member.uuid}/`, payload: { level: 8 } });
    assert.equal(elsewhere.statusCode, 404);
  });

  test('organization_member:write is needed; a session write needs the CSRF token', async () => {
    const member = await person('member');
    const reader = await createKey(t, { label: 'members', scopes: ['organization_member:read'] });
    const denied = await patchLevel(reader.value, member.uuid, 8);
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), permissionDenied("API key missing required scope 'organization_member:write'"));
    const owner = await signIn(t);
    const noCsrf = await owner.request({ method: 'PATCH', url: membersUrl(member.uuid), payload: { level: 8 }, csrf: null });
    assert.equal(noCsrf.statusCode, 403);
    assert.equal(noCsrf.json().code, 'csrf_failed');
    assert.equal(await levelOf(member.userId), 'member');
    assert.equal((await patchLevel(owner, member.uuid, 8)).statusCode, 200);
  });
});

describe('DELETE a member', () => {
  test('an admin removes a member: 204; their sessions end at once and their key no longer reaches the organization', async () => {
    const admin = await person('admin');
    const member = await person('member');
    assert.equal((await member.session.request({ method: 'GET', url: '/api/projects/1/feature_flags/' })).statusCode, 200);
    const response = await remove(admin.session, member.uuid);
    assert.equal(response.statusCode, 204, response.body);
    assert.equal(await levelOf(member.userId), null);
    const { rows } = await t.db.pool.query('SELECT 1 FROM sessions WHERE user_id = $1', [member.userId]);
    assert.equal(rows.length, 0, 'their sessions are gone');
    const bySession = await member.session.request({ method: 'GET', url: '/api/projects/1/feature_flags/' });
    assert.equal(bySession.statusCode, 401);
    const byKey = await t.request({ method: 'GET', url: '/api/projects/1/feature_flags/', key: member.key });
    assert.equal(byKey.statusCode, 403);
    assert.deepEqual(byKey.json(), NO_PROJECT_ACCESS);
    const members = await t.request({ method: 'GET', url: membersUrl(), key: member.key });
    assert.equal(members.statusCode, 404);
    const { rows: user } = await t.db.pool.query('SELECT current_organization_id, current_project_id FROM users WHERE id = $1', [member.userId]);
    assert.deepEqual(user[0], { current_organization_id: null, current_project_id: null });
  });

  test('members remove nobody, admins remove no owner; anyone may leave', async () => {
    const member = await person('member');
    const admin = await person('admin');
    const other = await person('member');
    assert.deepEqual((await remove(member.key, other.uuid)).json(), permissionDenied('You can only edit others if you are an admin.'));
    assert.deepEqual((await remove(admin.key, ownerUuid)).json(), permissionDenied('You can only edit others with level lower or equal to you.'));
    assert.equal(await levelOf(other.userId), 'member');
    const leave = await remove(member.session, member.uuid);
    assert.equal(leave.statusCode, 204, leave.body);
    assert.equal(await levelOf(member.userId), null);
  });

  test('the last owner can neither leave, be demoted nor be removed; with a second owner they can', async () => {
    const owner = await signIn(t);
    const leave = await remove(owner, ownerUuid);
    assert.equal(leave.statusCode, 400);
    assert.equal(leave.json().code, 'last_owner');
    assert.equal(await levelOf(1), 'owner');

    const second = await person('member');
    assert.equal((await patchLevel(t.key, second.uuid, 15)).statusCode, 200);
    // Two owners: either may demote or remove the other, until one is left.
    assert.equal((await patchLevel(second.key, ownerUuid, 8)).statusCode, 200);
    const back = await patchLevel(t.key, ownerUuid, 15);
    assert.equal(back.statusCode, 403, 'an admin cannot make themselves owner');
    assert.equal((await patchLevel(second.key, ownerUuid, 15)).statusCode, 200);
    const secondLeaves = await remove(second.key, second.uuid);
    assert.equal(secondLeaves.statusCode, 204, secondLeaves.body);
    const lastLeaves = await remove(t.key, ownerUuid);
    assert.equal(lastLeaves.statusCode, 400);
    assert.equal(await levelOf(1), 'owner');
  });
});
