// Single sign-on against a provider stub on loopback: the first sign-in creates the person at the
// default level, a second finds them by identity, an existing account is linked by its verified
// e-mail; every bad answer is refused with the sign-in page's reason and nothing half-created.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { parseOidcSettings } from '../../src/accounts/oidc/settings.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startOidcStub, type OidcStub, type StubAccount, type TokenTweaks } from '../helpers/oidc-stub.ts';
import { cookie, GOOD_PASSWORD, login, personWithPassword, sessionOf } from '../helpers/session.ts';

const SITE = 'http://bellwether.test';
let stub: OidcStub;
let t: TestApp;
let organizationId: string;

function settings(extra: Record<string, string> = {}) {
  return parseOidcSettings({
    OIDC_ISSUER_URL: stub.issuer,
    OIDC_CLIENT_ID: stub.clientId,
    OIDC_CLIENT_SECRET: stub.clientSecret,
    OIDC_ALLOWED_DOMAINS: 'example.com',
    ...extra,
  });
}

before(async () => {
  stub = await startOidcStub();
  t = await startTestApp({ siteUrl: SITE, oidc: settings({ OIDC_ENFORCED: 'true' }) });
  const { rows } = await t.db.pool.query<{ id: string }>('SELECT organization_id::text AS id FROM projects WHERE id = $1', [t.projectId]);
  organizationId = rows[0].id;
});

after(async () => {
  await t?.close();
  await stub?.close();
});

const account = (name: string, extra: Partial<StubAccount> = {}): StubAccount => ({
  sub: `sub-${name}`,
  email: `${name}@example.com`,
  email_verified: true,
  given_name: name[0].toUpperCase() + name.slice(1),
  family_name: 'Tester',
  ...extra,
});

interface Started {
  cookie: string;
  /** The callback's path and query, as the provider sends the browser back. */
  callback: string;
}

/** Clicks "Sign in with SSO" and lets the stub answer: the browser's cookie and where it is sent back. */
async function startSignIn(who: StubAccount, tweaks: TokenTweaks = {}): Promise<Started> {
  stub.next(who, tweaks);
  const begin = await t.request({ method: 'GET', url: '/api/auth/oidc/login', key: null });
  assert.equal(begin.statusCode, 302, begin.body);
  const location = new URL(begin.headers.location as string);
  assert.equal(location.origin, stub.issuer);
  assert.equal(location.searchParams.get('redirect_uri'), `${SITE}/api/auth/oidc/callback`);
  assert.equal(location.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(location.searchParams.get('scope'), 'openid email profile');
  const verifier = cookie(begin, 'bellwether_oidc');
  assert.ok(verifier?.httpOnly, 'the verifier cookie is HttpOnly');
  const provider = await fetch(location, { redirect: 'manual' });
  assert.equal(provider.status, 302);
  const back = new URL(provider.headers.get('location')!);
  return { cookie: verifier.value, callback: `${back.pathname}${back.search}` };
}

function callback(started: Started, cookieValue: string | null = started.cookie, url = started.callback): Promise<LightMyRequestResponse> {
  return t.request({ method: 'GET', url, key: null, headers: cookieValue === null ? {} : { cookie: `bellwether_oidc=${cookieValue}` } });
}

function assertRefused(response: LightMyRequestResponse, reason: string) {
  assert.equal(response.statusCode, 302, response.body);
  assert.equal(response.headers.location, `/?sso_error=${reason}`);
  assert.equal(cookie(response, 'bellwether_session'), undefined, 'no session');
}

async function counts() {
  const { rows } = await t.db.pool.query(
    `SELECT (SELECT count(*)::int FROM users) AS users, (SELECT count(*)::int FROM user_identities) AS identities,
            (SELECT count(*)::int FROM sessions) AS sessions, (SELECT count(*)::int FROM organization_memberships) AS memberships`,
  );
  return rows[0];
}

/** Runs `attempt` and checks that nothing was created by it. */
async function nothingCreated(attempt: () => Promise<void>) {
  const before = await counts();
  await attempt();
  assert.deepEqual(await counts(), before, 'nothing half-created');
}

test('the first sign-in creates the person as a member of the organization and signs them in like a password would', async () => {
  const started = await startSignIn(account('ada'));
  const response = await callback(started);
  assert.equal(response.statusCode, 302, response.body);
  assert.equal(response.headers.location, '/');
  const signedIn = sessionOf(t, response);
  const me = await signedIn.request({ method: 'GET', url: '/api/users/@me/' });
  assert.equal(me.statusCode, 200, me.body);
  assert.equal(me.json().email, 'ada@example.com');
  assert.equal(me.json().first_name, 'Ada');
  assert.equal(me.json().has_password, false);
  const { rows } = await t.db.pool.query(
    `SELECT m.level, u.is_email_verified, i.issuer, i.subject FROM users u JOIN organization_memberships m ON m.user_id = u.id
       JOIN user_identities i ON i.user_id = u.id WHERE u.email = 'ada@example.com'`,
  );
  assert.deepEqual(rows, [{ level: 'member', is_email_verified: true, issuer: stub.issuer, subject: 'sub-ada' }]);
  // The session is a session: CSRF on writes, sign-out ends it.
  const noCsrf = await signedIn.request({ method: 'PATCH', url: '/api/users/@me/', payload: { first_name: 'A' }, csrf: null });
  assert.equal(noCsrf.statusCode, 403);
  const out = await signedIn.request({ method: 'POST', url: '/api/logout/' });
  assert.equal(out.statusCode, 204);
  assert.equal((await signedIn.request({ method: 'GET', url: '/api/users/@me/' })).statusCode, 401);
});

test('a second sign-in finds the person by their identity, even with another e-mail at the provider', async () => {
  const before = await counts();
  const response = await callback(await startSignIn(account('ada', { email: 'ada.lovelace@example.com' })));
  assert.equal(response.headers.location, '/');
  const me = await sessionOf(t, response).request({ method: 'GET', url: '/api/users/@me/' });
  assert.equal(me.json().email, 'ada@example.com');
  const after = await counts();
  assert.equal(after.users, before.users);
  assert.equal(after.identities, before.identities);
});

test('an existing account with the same verified e-mail is linked on first use and keeps its level', async () => {
  const { userId } = await personWithPassword(t, organizationId, 'admin', 'grace@example.com');
  const response = await callback(await startSignIn(account('grace', { email: 'Grace@Example.com' })));
  assert.equal(response.headers.location, '/');
  const { rows } = await t.db.pool.query('SELECT user_id FROM user_identities WHERE subject = $1', ['sub-grace']);
  assert.deepEqual(rows, [{ user_id: userId }]);
  const members = await t.request({ method: 'GET', url: `/api/organizations/${organizationId}/members/` });
  const grace = members.json().results.find((m: { user: { email: string } }) => m.user.email === 'grace@example.com');
  assert.equal(grace.level, 8);
  assert.equal(grace.has_social_auth, true);
  assert.equal(grace.has_password, true);
});

test('with OIDC_ENFORCED, an address of the domain cannot sign in with a password; others can', async () => {
  const refused = await login(t, 'grace@example.com', GOOD_PASSWORD);
  assert.equal(refused.statusCode, 400, refused.body);
  assert.equal(refused.json().code, 'sso_required');
  await personWithPassword(t, organizationId, 'member', 'outsider@elsewhere.test');
  assert.equal((await login(t, 'outsider@elsewhere.test', GOOD_PASSWORD)).statusCode, 200);
});

test('the sign-in page learns what to offer from /api/login/methods/', async () => {
  const response = await t.request({ method: 'GET', url: '/api/login/methods/', key: null });
  assert.equal(response.statusCode, 200);
  assert.deepEqual(response.json(), {
    sso: { button_text: 'Sign in with SSO', login_url: '/api/auth/oidc/login', enforced_domains: ['example.com'] },
    password_reset_by_email: false,
  });
});

test('a wrong state, a callback without the browser cookie, or another browser cookie are refused', async () => {
  await nothingCreated(async () => {
    const started = await startSignIn(account('eve'));
    assertRefused(await callback(started, started.cookie, started.callback.replace(/state=[^&]+/, 'state=forged')), 'invalid_state');
    const again = await startSignIn(account('eve'));
    assertRefused(await callback(again, null), 'invalid_state');
    const third = await startSignIn(account('eve'));
    assertRefused(await callback(third, started.cookie), 'invalid_state');
  });
});

test('a replayed state is refused: each pending sign-in works once', async () => {
  const started = await startSignIn(account('replay'));
  assert.equal((await callback(started)).headers.location, '/');
  await nothingCreated(async () => assertRefused(await callback(started), 'invalid_state'));
});

test('a replayed code is refused by the provider, with a fresh state of the same browser', async () => {
  const first = await startSignIn(account('code'));
  assert.equal((await callback(first)).headers.location, '/');
  const code = new URL(first.callback, SITE).searchParams.get('code')!;
  const second = await startSignIn(account('code'));
  const forged = second.callback.replace(/code=[^&]+/, `code=${code}`);
  await nothingCreated(async () => assertRefused(await callback(second, second.cookie, forged), 'rejected'));
});

test('an ID token signed by another key, expired, for another audience or with another nonce is refused', async () => {
  for (const tweaks of [{ otherKey: true }, { expired: true }, { audience: 'someone-else' }, { nonce: 'not-the-one' }] satisfies TokenTweaks[]) {
    await nothingCreated(async () => assertRefused(await callback(await startSignIn(account('mallory'), tweaks)), 'invalid_token'));
  }
});

test('an unverified e-mail, a missing one and a domain that is not allowed are refused', async () => {
  await nothingCreated(async () => {
    assertRefused(await callback(await startSignIn(account('unverified', { email_verified: false }))), 'email_unverified');
    assertRefused(await callback(await startSignIn(account('noemail', { email: '' }))), 'email_unverified');
    assertRefused(await callback(await startSignIn(account('stranger', { email: 'stranger@elsewhere.test' }))), 'domain_not_allowed');
  });
});

test("without email_verified, Microsoft Entra ID's xms_edov (the domain's owner verified it) is taken instead; neither is refused", async () => {
  const silent = (name: string) => {
    const { email_verified: _omitted, ...rest } = account(name);
    return rest;
  };
  await nothingCreated(async () => assertRefused(await callback(await startSignIn(silent('quiet'))), 'email_unverified'));
  await nothingCreated(async () =>
    assertRefused(await callback(await startSignIn(silent('quiet'), { claims: { xms_edov: false } })), 'email_unverified'),
  );
  const response = await callback(await startSignIn(silent('entra'), { claims: { xms_edov: true } }));
  assert.equal(response.headers.location, '/');
  // A stated `email_verified: false` is not overruled.
  await nothingCreated(async () =>
    assertRefused(await callback(await startSignIn(account('stated', { email_verified: false }), { claims: { xms_edov: true } })), 'email_unverified'),
  );
});

test('the provider down at the callback gives the sign-in page its reason, never a 500', async () => {
  const started = await startSignIn(account('late'));
  await stub.down();
  try {
    await nothingCreated(async () => assertRefused(await callback(started), 'provider_unavailable'));
  } finally {
    await stub.up();
  }
});

test('an error sent back by the provider (the person declined) is refused as denied', async () => {
  const started = await startSignIn(account('declines'));
  const state = new URL(started.callback, SITE).searchParams.get('state')!;
  await nothingCreated(async () =>
    assertRefused(await callback(started, started.cookie, `/api/auth/oidc/callback?error=access_denied&state=${state}`), 'denied'),
  );
});

test('one client address may have at most 100 sign-ins on their way: the next is a 429, others are not held up', async () => {
  await t.db.pool.query(
    `INSERT INTO oidc_sign_ins (state_hash, verifier_hash, nonce, address, expires_at)
     SELECT 'flood-' || n, 'v', 'n', '10.6.6.6', now() + interval '10 minutes' FROM generate_series(1, 100) AS n`,
  );
  const flooded = await t.request({ method: 'GET', url: '/api/auth/oidc/login', key: null, remoteAddress: '10.6.6.6' });
  assert.equal(flooded.statusCode, 429, flooded.body);
  assert.equal(flooded.headers['retry-after'], '600');
  const other = await t.request({ method: 'GET', url: '/api/auth/oidc/login', key: null, remoteAddress: '10.7.7.7' });
  assert.equal(other.statusCode, 302);
  await t.db.pool.query(`DELETE FROM oidc_sign_ins WHERE address = '10.6.6.6'`);
});

test('a provider that cannot be read stops the start with a message naming the setting', async () => {
  const down = parseOidcSettings({
    OIDC_ISSUER_URL: 'http://127.0.0.1:9/nothing',
    OIDC_CLIENT_ID: 'x',
    OIDC_CLIENT_SECRET: 'y',
    OIDC_ALLOWED_DOMAINS: 'example.com',
  });
  await assert.rejects(buildApp({ pool: t.db.pool, databaseUrl: null, siteUrl: SITE, oidc: down }), /OIDC_ISSUER_URL http:\/\/127\.0\.0\.1:9\/nothing/);
});

test('half-given or unsafe settings are refused with what is wrong', () => {
  const base = { OIDC_ISSUER_URL: 'https://id.example.com', OIDC_CLIENT_ID: 'x', OIDC_CLIENT_SECRET: 'y', OIDC_ALLOWED_DOMAINS: 'example.com' };
  assert.throws(() => parseOidcSettings({ ...base, OIDC_ALLOWED_DOMAINS: '' }), /OIDC_ALLOWED_DOMAINS is required/);
  assert.throws(() => parseOidcSettings({ ...base, OIDC_CLIENT_SECRET: '' }), /OIDC_CLIENT_SECRET is required/);
  assert.throws(() => parseOidcSettings({ ...base, OIDC_ISSUER_URL: 'http://id.example.com' }), /must be https/);
  assert.throws(() => parseOidcSettings({ ...base, OIDC_DEFAULT_LEVEL: 'owner' }), /member or admin/);
  assert.throws(() => parseOidcSettings({ ...base, OIDC_ALLOWED_DOMAINS: '*', OIDC_ENFORCED: 'true' }), /OIDC_ENFORCED needs/);
  assert.throws(() => parseOidcSettings({ OIDC_CLIENT_ID: 'x' }), /without OIDC_ISSUER_URL/);
  assert.deepEqual(parseOidcSettings({ ...base, OIDC_ALLOWED_DOMAINS: 'Example.com, @corp.example' })?.allowedDomains, ['example.com', 'corp.example']);
});
