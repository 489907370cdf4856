// Invites (create, list, cancel; who may; duplicates; expiry) and the public sign-up that uses one
// up: the account, its membership and the session in one step, and everything that must fail.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyPassword } from '../../src/accounts/auth/passwords.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { cookie, GOOD_PASSWORD, givePassword, login, personWithPassword, sessionOf, signIn } from '../helpers/session.ts';
import { createOrganization, currentOrganizationId, foreignOrganization, NOT_FOUND, otherUser, permissionDenied } from './support.ts';

let t: TestApp;
let orgId: string;

before(async () => {
  t = await startTestApp();
  orgId = await currentOrganizationId(t);
  await givePassword(t);
});
after(() => t.close());

const invitesUrl = (id = '') => `/api/organizations/${orgId}/invites/${id ? `${id}/` : ''}`;
let counter = 0;
const freshEmail = () => `invitee-${++counter}-${Date.now()}@example.com`;

function invite(payload: Record<string, unknown>, key?: string) {
  return t.request({ method: 'POST', url: invitesUrl(), payload, key });
}

async function created(payload: Record<string, unknown>): Promise<Record<string, any>> {
  const response = await invite(payload);
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

async function expire(id: string): Promise<void> {
  await t.db.pool.query("UPDATE organization_invites SET created_at = now() - interval '3 days 1 minute' WHERE id = $1", [id]);
}

describe('invites', () => {
  test("an owner invites by e-mail: 201 with PostHog's shape and the link to hand over", async () => {
    const email = freshEmail();
    const body = await created({ target_email: `  ${email} `, first_name: 'Ada', level: 8 });
    assert.match(body.id, /^[0-9a-f-]{36}$/);
    assert.equal(body.target_email, email);
    assert.equal(body.first_name, 'Ada');
    assert.equal(body.level, 8);
    assert.equal(body.is_expired, false);
    assert.equal(body.emailing_attempt_made, false);
    assert.equal(body.message, null);
    assert.equal(body.created_by.email, 'admin@bellwether.local');
    assert.equal(body.invite_url, `http://localhost:80/signup/${body.id}`);
    const list = await t.request({ method: 'GET', url: invitesUrl() });
    assert.equal(list.statusCode, 200);
    assert.ok(list.json().results.some((i: { id: string }) => i.id === body.id));
  });

  test('the link starts with SITE_URL when it is set', async () => {
    const other = await startTestApp({ siteUrl: 'https://flags.example.com' });
    try {
      const organization = await currentOrganizationId(other);
      const response = await other.request({ method: 'POST', url: `/api/organizations/${organization}/invites/`, payload: { target_email: 'a@example.com' } });
      assert.equal(response.json().invite_url, `https://flags.example.com/signup/${response.json().id}`);
    } finally {
      await other.close();
    }
  });

  test('the default level is member; levels other than 1, 8, 15 and bad addresses are 400 on their field', async () => {
    assert.equal((await created({ target_email: freshEmail() })).level, 1);
    const cases: [Record<string, unknown>, string][] = [
      [{ target_email: freshEmail(), level: 3 }, 'level'],
      [{ target_email: 'not an address' }, 'target_email'],
      [{ target_email: '' }, 'target_email'],
      [{ target_email: `${'a'.repeat(250)}@example.com` }, 'target_email'],
      [{}, 'target_email'],
      [{ target_email: freshEmail(), first_name: 'x'.repeat(151) }, 'first_name'],
    ];
    for (const [payload, attr] of cases) {
      const response = await invite(payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.equal(response.json().attr, attr, response.body);
    }
  });

  test('a valid invite for the address, or a member with it (any case): 400 on target_email; an expired one is replaced', async () => {
    const email = freshEmail();
    const first = await created({ target_email: email });
    const again = await invite({ target_email: email.toUpperCase() });
    assert.equal(again.statusCode, 400);
    assert.equal(again.json().attr, 'target_email');
    assert.equal(again.json().code, 'invite_exists');
    const member = await invite({ target_email: 'ADMIN@bellwether.local' });
    assert.equal(member.statusCode, 400);
    assert.deepEqual(member.json(), {
      type: 'validation_error',
      code: 'user_already_member',
      detail: 'A user with this email address already belongs to the organization.',
      attr: 'target_email',
    });
    await expire(first.id);
    const listed = (await t.request({ method: 'GET', url: `${invitesUrl()}?limit=1000` })).json().results;
    assert.equal(listed.find((i: { id: string }) => i.id === first.id).is_expired, true);
    const replaced = await created({ target_email: email });
    const { rows } = await t.db.pool.query('SELECT id FROM organization_invites WHERE lower(target_email) = lower($1)', [email]);
    assert.deepEqual(rows.map((r) => r.id), [replaced.id]);
  });

  test('members may not invite, list or cancel; admins not above their own level', async () => {
    const member = await otherUser(t, orgId, 'member');
    const admin = await otherUser(t, orgId, 'admin');
    const denied = await invite({ target_email: freshEmail() }, member.key);
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), permissionDenied('Only admins and owners can invite new members.'));
    assert.equal((await t.request({ method: 'GET', url: invitesUrl(), key: member.key })).statusCode, 403);
    const owner = await invite({ target_email: freshEmail(), level: 15 }, admin.key);
    assert.equal(owner.statusCode, 403);
    assert.deepEqual(owner.json(), permissionDenied('You cannot invite a user with a higher permission level than your own.'));
    assert.equal((await invite({ target_email: freshEmail(), level: 8 }, admin.key)).statusCode, 201);
    const some = await created({ target_email: freshEmail() });
    assert.equal((await t.request({ method: 'DELETE', url: invitesUrl(some.id), key: member.key })).statusCode, 403);
  });

  test("cancel: 204, then 404; another organization's invite or an unknown id: 404", async () => {
    const some = await created({ target_email: freshEmail() });
    assert.equal((await t.request({ method: 'DELETE', url: invitesUrl(some.id) })).statusCode, 204);
    assert.equal((await t.request({ method: 'DELETE', url: invitesUrl(some.id) })).statusCode, 404);
    assert.equal((await t.request({ method: 'DELETE', url: invitesUrl('nope') })).statusCode, 404);
    const second = await createOrganization(t, 'Second');
    const theirs = (await t.request({ method: 'POST', url: `/api/organizations/${second.id}/invites/`, payload: { target_email: freshEmail() } })).json();
    const crossed = await t.request({ method: 'DELETE', url: invitesUrl(theirs.id) });
    assert.equal(crossed.statusCode, 404);
    assert.deepEqual(crossed.json(), NOT_FOUND);
    const foreign = await foreignOrganization(t);
    assert.equal((await t.request({ method: 'GET', url: `/api/organizations/${foreign.organizationId}/invites/` })).statusCode, 404);
    assert.equal((await t.request({ method: 'POST', url: `/api/organizations/${foreign.organizationId}/invites/`, payload: { target_email: freshEmail() } })).statusCode, 404);
  });

  test('a session write needs the CSRF token; a key needs organization_member:write', async () => {
    const session = await signIn(t);
    const refused = await session.request({ method: 'POST', url: invitesUrl(), payload: { target_email: freshEmail() }, csrf: null });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().code, 'csrf_failed');
    assert.equal((await session.request({ method: 'POST', url: invitesUrl(), payload: { target_email: freshEmail() } })).statusCode, 201);
  });
});

describe('signup by invite', () => {
  const signupUrl = (id: string) => `/api/signup/${id}/`;
  const publicGet = (id: string) => t.request({ method: 'GET', url: signupUrl(id), key: null });
  const publicPost = (id: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.request({ method: 'POST', url: signupUrl(id), payload, key: null, headers });

  test('GET: the masked address, first name and organization, to anyone holding the link', async () => {
    const some = await created({ target_email: 'johnny@example.com', first_name: 'John' });
    const response = await publicGet(some.id);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), {
      id: some.id,
      target_email: 'j****y@example.com',
      first_name: 'John',
      organization_name: 'Default organization',
      existing_account: false,
    });
  });

  test('GET and POST on unknown, malformed, expired or cancelled invites: 400 in PostHog words', async () => {
    const invalid = { type: 'validation_error', code: 'invalid_input', detail: 'The provided invite ID is not valid.', attr: null };
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      assert.deepEqual((await publicGet(id)).json(), invalid);
      assert.deepEqual((await publicPost(id, { first_name: 'A', password: GOOD_PASSWORD })).json(), invalid);
    }
    const old = await created({ target_email: freshEmail() });
    await expire(old.id);
    for (const response of [await publicGet(old.id), await publicPost(old.id, { first_name: 'A', password: GOOD_PASSWORD })]) {
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().code, 'expired');
    }
    const cancelled = await created({ target_email: freshEmail() });
    await t.request({ method: 'DELETE', url: invitesUrl(cancelled.id) });
    assert.equal((await publicGet(cancelled.id)).statusCode, 400);
  });

  test('POST: the account, its membership at the invite level and a session, in one step; the invite is used up', async () => {
    const email = freshEmail();
    const some = await created({ target_email: email, level: 8 });
    const response = await publicPost(some.id, { first_name: '  Grace ', last_name: 'Hopper', password: GOOD_PASSWORD });
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.json().email, email);
    assert.equal(response.json().first_name, 'Grace');
    assert.equal(cookie(response, 'bellwether_session')?.httpOnly, true);

    const session = sessionOf(t, response);
    const me = await session.request({ method: 'GET', url: '/api/users/@me/' });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json().email, email);
    assert.equal(me.json().has_password, true);
    assert.equal(me.json().organization.id, orgId);
    assert.equal(me.json().organization.membership_level, 8);
    assert.equal(me.json().team.id, 1, 'they start in the organization\'s first project');

    const { rows } = await t.db.pool.query('SELECT password_hash FROM users WHERE email = $1', [email]);
    assert.ok(await verifyPassword(GOOD_PASSWORD, rows[0].password_hash));
    assert.equal((await t.db.pool.query('SELECT 1 FROM organization_invites WHERE id = $1', [some.id])).rowCount, 0);
    assert.equal((await publicGet(some.id)).statusCode, 400);
    assert.equal((await publicPost(some.id, { first_name: 'Again', password: GOOD_PASSWORD })).statusCode, 400);
    assert.equal((await login(t, email, GOOD_PASSWORD)).statusCode, 200);

    // What they change is theirs in the activity log.
    const flag = await session.request({ method: 'POST', url: '/api/projects/1/feature_flags/', payload: { key: 'by-grace', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } } });
    assert.equal(flag.statusCode, 201, flag.body);
    const activity = await session.request({ method: 'GET', url: `/api/projects/1/feature_flags/${flag.json().id}/activity/` });
    assert.equal(activity.json().results[0].user.email, email);
  });

  test('POST: weak passwords and blank names are 400 on their field, and nothing is created', async () => {
    const email = freshEmail();
    const some = await created({ target_email: email });
    const cases: [Record<string, unknown>, string][] = [
      [{ first_name: 'Ann', password: 'short' }, 'password'],
      [{ first_name: 'Ann', password: 'password123' }, 'password'],
      [{ first_name: 'Ann', password: email }, 'password'],
      [{ first_name: '   ', password: GOOD_PASSWORD }, 'first_name'],
      [{ password: GOOD_PASSWORD }, 'first_name'],
      [{ first_name: 'Ann' }, 'password'],
    ];
    for (const [payload, attr] of cases) {
      const response = await publicPost(some.id, payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.equal(response.json().attr, attr, response.body);
    }
    assert.equal((await t.db.pool.query('SELECT 1 FROM users WHERE email = $1', [email])).rowCount, 0);
    assert.equal((await publicGet(some.id)).statusCode, 200, 'the invite is still usable');
  });

  test('an address that already has an account: 400 account_exists; a browser on another site: 403', async () => {
    const other = await createOrganization(t, 'Elsewhere');
    const { email } = await personWithPassword(t, other.id, 'member');
    const some = await created({ target_email: email });
    const response = await publicGet(some.id);
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().code, 'account_exists');
    assert.equal((await publicPost(some.id, { first_name: 'X', password: GOOD_PASSWORD })).json().code, 'account_exists');

    const fresh = await created({ target_email: freshEmail() });
    const foreign = await publicPost(fresh.id, { first_name: 'X', password: GOOD_PASSWORD }, { origin: 'https://evil.example' });
    assert.equal(foreign.statusCode, 403);
    assert.equal(foreign.json().code, 'csrf_failed');
  });

  test('signed in as the invited address, the account joins (CSRF needed; no password); signed in as someone else: 400', async () => {
    const elsewhere = await createOrganization(t, 'Their own');
    const { email, userId } = await personWithPassword(t, elsewhere.id, 'owner');
    const some = await created({ target_email: email.toUpperCase(), level: 8 });
    const them = await signIn(t, email);
    const info = await them.request({ method: 'GET', url: signupUrl(some.id) });
    assert.equal(info.statusCode, 200, info.body);
    assert.equal(info.json().existing_account, true);

    const noCsrf = await them.request({ method: 'POST', url: signupUrl(some.id), payload: {}, csrf: null });
    assert.equal(noCsrf.statusCode, 403);
    assert.equal(noCsrf.json().code, 'csrf_failed');
    const someoneElse = await signIn(t);
    const wrong = await someoneElse.request({ method: 'GET', url: signupUrl(some.id) });
    assert.equal(wrong.statusCode, 400);
    assert.equal(wrong.json().code, 'invalid_recipient');

    const joined = await them.request({ method: 'POST', url: signupUrl(some.id), payload: {} });
    assert.equal(joined.statusCode, 201, joined.body);
    assert.equal(joined.json().email, email);
    assert.equal(joined.headers['set-cookie'], undefined, 'the same session goes on');
    const me = (await them.request({ method: 'GET', url: '/api/users/@me/' })).json();
    assert.equal(me.organization.id, orgId, 'the organization joined is the current one');
    assert.equal(me.organization.membership_level, 8);
    assert.equal(me.organizations.length, 2);
    const { rows } = await t.db.pool.query('SELECT level FROM organization_memberships WHERE user_id = $1 ORDER BY joined_at', [userId]);
    assert.deepEqual(rows.map((r) => r.level), ['owner', 'admin']);
    assert.equal((await them.request({ method: 'GET', url: signupUrl(some.id) })).statusCode, 400, 'used up');
  });

  test('two sign-ups with one invite at once: one account, the other 400', async () => {
    const email = freshEmail();
    const some = await created({ target_email: email });
    const answers = await Promise.all([
      publicPost(some.id, { first_name: 'One', password: GOOD_PASSWORD }),
      publicPost(some.id, { first_name: 'Two', password: GOOD_PASSWORD }),
    ]);
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [201, 400]);
    assert.equal((await t.db.pool.query('SELECT 1 FROM users WHERE email = $1', [email])).rowCount, 1);
  });
});
