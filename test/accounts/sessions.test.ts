// Sign-in, the session cookie as a second way into the management API, CSRF, sign-out, expiry,
// one-time sign-in links, and what the session must never open (the SDK and ingestion endpoints).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSignInToken } from '../../src/accounts/sessions/sign-in-links.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { cookie, givePassword, GOOD_PASSWORD, login, OWNER_EMAIL, sessionOf, signIn } from '../helpers/session.ts';
import { inUnit } from '../helpers/database.ts';

const CSRF_FAILED = { type: 'authentication_error', code: 'csrf_failed', detail: 'CSRF token missing or incorrect.', attr: null };
const SESSION_EXPIRED = {
  type: 'authentication_error',
  code: 'authentication_failed',
  detail: 'Your session has expired. Please sign in again.',
  attr: null,
};

let t: TestApp;
let ownerId: number;
before(async () => {
  t = await startTestApp();
  ownerId = await givePassword(t);
});
after(() => t.close());

describe('POST /api/login/', () => {
  test('the right e-mail and password: 200 {success: true}, an HttpOnly session cookie and a readable CSRF cookie', async () => {
    const response = await login(t, OWNER_EMAIL, GOOD_PASSWORD);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { success: true });
    const session = cookie(response, 'bellwether_session')!;
    const csrf = cookie(response, 'bellwether_csrftoken')!;
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Lax');
    assert.equal(session.path, '/');
    assert.equal(session.secure, undefined, 'plain http: not Secure');
    assert.equal(csrf.httpOnly, undefined, 'the console reads the CSRF token');
    assert.equal(csrf.sameSite, 'Lax');
    assert.ok(session.value.length >= 40 && csrf.value.length >= 40);
    assert.notEqual(session.value, csrf.value);

    // Only hashes are stored.
    const { rows } = await t.db.pool.query('SELECT id_hash, csrf_hash FROM sessions WHERE user_id = $1', [ownerId]);
    assert.ok(rows.length >= 1);
    for (const row of rows) {
      assert.notEqual(row.id_hash, session.value);
      assert.notEqual(row.csrf_hash, csrf.value);
    }
    const stored = await t.db.pool.query('SELECT last_login FROM users WHERE id = $1', [ownerId]);
    assert.ok(stored.rows[0].last_login instanceof Date);
  });

  test('the e-mail is matched whatever its case and surrounding spaces', async () => {
    const response = await login(t, '  Admin@Bellwether.LOCAL ', GOOD_PASSWORD);
    assert.equal(response.statusCode, 200, response.body);
  });

  test('a wrong password and an unknown e-mail get the same 400, and no cookie', async () => {
    const wrongPassword = await login(t, OWNER_EMAIL, 'not the password');
    const unknownEmail = await login(t, 'nobody@example.com', GOOD_PASSWORD);
    const expected = { type: 'validation_error', code: 'invalid_credentials', detail: 'Invalid email or password.', attr: null };
    for (const response of [wrongPassword, unknownEmail]) {
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), expected);
      assert.equal(response.headers['set-cookie'], undefined);
    }
    assert.equal(wrongPassword.body, unknownEmail.body);
  });

  test('an unknown e-mail costs a password verification too (no fast answer that tells accounts apart)', async () => {
    const timed = async (email: string) => {
      const started = process.hrtime.bigint();
      const response = await login(t, email, 'wrong password here', { remoteAddress: '10.9.9.9' });
      assert.equal(response.statusCode, 400);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    const median = (values: number[]) => values.sort((a, b) => a - b)[1];
    const known = median([await timed(OWNER_EMAIL), await timed(OWNER_EMAIL), await timed(OWNER_EMAIL)]);
    const unknown = median([await timed('ghost@example.com'), await timed('ghost@example.com'), await timed('ghost@example.com')]);
    // Without the dummy hash an unknown e-mail answers in about 1 % of the time; generous either way.
    assert.ok(unknown > known * 0.3, `unknown e-mail ${unknown.toFixed(1)} ms vs wrong password ${known.toFixed(1)} ms`);
    await t.db.pool.query('DELETE FROM login_failures');
  });

  test('a user without a password cannot sign in with any password, the empty one included', async () => {
    await t.db.pool.query(`INSERT INTO users (distinct_id, email) VALUES ('nopass', 'nopass@example.com')`);
    for (const password of ['', 'anything at all']) {
      const response = await login(t, 'nopass@example.com', password);
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().code, 'invalid_credentials');
    }
  });

  test('bad bodies: 400 naming the field, never a 500', async () => {
    const cases: [unknown, string][] = [
      [{ password: 'x' }, 'email'],
      [{ email: 'a@b.c' }, 'password'],
      [{ email: 42, password: 'x' }, 'email'],
      [{ email: 'a@b.c', password: 'x'.repeat(257) }, 'password'],
      [{ email: `${'a'.repeat(300)}@b.c`, password: 'x' }, 'email'],
    ];
    for (const [payload, attr] of cases) {
      const response = await t.request({ method: 'POST', url: '/api/login/', payload: payload as object, key: null });
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.equal(response.json().attr, attr);
    }
    await t.db.pool.query('DELETE FROM login_failures');
  });

  test("a browser's Origin must be this site's (login CSRF); no Origin is fine (scripts)", async () => {
    const foreign = await login(t, OWNER_EMAIL, GOOD_PASSWORD, { headers: { origin: 'https://evil.example' } });
    assert.equal(foreign.statusCode, 403);
    assert.equal(foreign.json().code, 'csrf_failed');
    assert.equal(foreign.headers['set-cookie'], undefined);
    const own = await login(t, OWNER_EMAIL, GOOD_PASSWORD, { headers: { origin: 'http://localhost:80', host: 'localhost:80' } });
    assert.equal(own.statusCode, 200, own.body);
  });
});

describe('the session on the management API', () => {
  test('reads with the cookie alone; the person is the caller', async () => {
    const session = await signIn(t);
    const me = await session.request({ method: 'GET', url: '/api/users/@me/', csrf: null });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json().email, OWNER_EMAIL);
    const flags = await session.request({ method: 'GET', url: '/api/projects/1/feature_flags/', csrf: null });
    assert.equal(flags.statusCode, 200);
  });

  test('a write without the CSRF header, or with a wrong one, is refused with 403 csrf_failed and changes nothing', async () => {
    const session = await signIn(t);
    for (const csrf of [null, 'wrong', session.sessionId]) {
      const response = await session.request({
        method: 'POST',
        url: '/api/projects/1/feature_flags/',
        payload: { key: 'csrf-blocked', filters: { groups: [] } },
        csrf,
      });
      assert.equal(response.statusCode, 403, String(csrf));
      assert.deepEqual(response.json(), CSRF_FAILED);
    }
    for (const method of ['PATCH', 'DELETE'] as const) {
      const response = await session.request({ method, url: '/api/projects/1/', payload: { name: 'x' }, csrf: null });
      assert.deepEqual(response.json(), CSRF_FAILED, method);
    }
    const stored = await t.db.pool.query("SELECT 1 FROM feature_flags WHERE key = 'csrf-blocked'");
    assert.equal(stored.rowCount, 0);
  });

  test("another session's CSRF token does not do", async () => {
    const first = await signIn(t);
    const second = await signIn(t);
    const response = await first.request({ method: 'PATCH', url: '/api/projects/1/', payload: { name: 'Renamed' }, csrf: second.csrfToken });
    assert.deepEqual(response.json(), CSRF_FAILED);
  });

  test('a write with the token works, and the activity log names the person', async () => {
    await t.db.pool.query(`UPDATE users SET first_name = 'Ada' WHERE id = $1`, [ownerId]);
    const session = await signIn(t);
    const created = await session.request({
      method: 'POST',
      url: '/api/projects/1/feature_flags/',
      payload: { key: 'made-in-console', filters: { groups: [{ properties: [], rollout_percentage: 10 }] } },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().created_by.email, OWNER_EMAIL);
    const activity = await session.request({ method: 'GET', url: `/api/projects/1/feature_flags/${created.json().id}/activity/` });
    const [entry] = activity.json().results;
    assert.equal(entry.activity, 'created');
    assert.equal(entry.user.email, OWNER_EMAIL);
    assert.equal(entry.user.first_name, 'Ada');
    assert.equal(entry.is_system, false);
  });

  test('personal API keys from the console: create (shown once), list masked, revoke', async () => {
    const session = await signIn(t);
    const created = await session.request({
      method: 'POST',
      url: '/api/personal_api_keys/',
      payload: { label: 'ci', scopes: ['feature_flag:read'], scoped_teams: [1] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const { id, value } = created.json();
    assert.match(value, /^phx_/);
    const list = await session.request({ method: 'GET', url: '/api/personal_api_keys/' });
    const listed = list.json().results.find((k: { id: string }) => k.id === id);
    assert.equal(listed.value, undefined);
    assert.equal(listed.mask_value, `${value.slice(0, 4)}...${value.slice(-4)}`);
    assert.equal((await t.request({ method: 'GET', url: '/api/projects/1/feature_flags/', key: value })).statusCode, 200);
    const revoked = await session.request({ method: 'DELETE', url: `/api/personal_api_keys/${id}/` });
    assert.equal(revoked.statusCode, 204);
    assert.equal((await t.request({ method: 'GET', url: '/api/projects/1/feature_flags/', key: value })).statusCode, 401);
  });

  test('with an Authorization header the key alone decides: the cookie is ignored, no CSRF needed', async () => {
    const session = await signIn(t);
    const headers = { cookie: `bellwether_session=${session.sessionId}` };
    const bad = await t.request({ method: 'GET', url: '/api/users/@me/', key: 'phx_not-a-key', headers });
    assert.equal(bad.statusCode, 401);
    assert.equal(bad.json().code, 'authentication_failed');
    const write = await t.request({ method: 'PATCH', url: '/api/projects/1/', payload: { name: 'Default project' }, headers });
    assert.equal(write.statusCode, 200, write.body);
  });

  test('an unknown, malformed or oversized session cookie: 401 and the cookies are cleared', async () => {
    for (const value of ['nope', 'x'.repeat(5000), '%%%']) {
      const response = await t.request({ method: 'GET', url: '/api/users/@me/', key: null, headers: { cookie: `bellwether_session=${value}` } });
      assert.equal(response.statusCode, 401);
      assert.deepEqual(response.json(), SESSION_EXPIRED);
      assert.equal(cookie(response, 'bellwether_session')?.value, '');
    }
    const none = await t.request({ method: 'GET', url: '/api/users/@me/', key: null });
    assert.equal(none.json().code, 'not_authenticated');
  });
});

describe('sign-out and expiry', () => {
  test('POST /api/logout/ → 204, both cookies cleared, the old cookie no longer works', async () => {
    const session = await signIn(t);
    const out = await session.request({ method: 'POST', url: '/api/logout/' });
    assert.equal(out.statusCode, 204);
    assert.equal(cookie(out, 'bellwether_session')?.value, '');
    assert.equal(cookie(out, 'bellwether_csrftoken')?.value, '');
    const after = await session.request({ method: 'GET', url: '/api/users/@me/' });
    assert.equal(after.statusCode, 401);
    assert.deepEqual(after.json(), SESSION_EXPIRED);
  });

  test('sign-out needs the CSRF token (no forced sign-out from another site); without a session it just clears', async () => {
    const session = await signIn(t);
    const forced = await session.request({ method: 'POST', url: '/api/logout/', csrf: null });
    assert.equal(forced.statusCode, 403);
    assert.equal((await session.request({ method: 'GET', url: '/api/users/@me/' })).statusCode, 200);
    const anonymous = await t.request({ method: 'POST', url: '/api/logout/', key: null });
    assert.equal(anonymous.statusCode, 204);
  });

  test('idle limit: a session unused for longer than the idle timeout is refused', async () => {
    const session = await signIn(t);
    await t.db.pool.query(`UPDATE sessions SET last_seen_at = now() - interval '15 days' WHERE user_id = $1`, [ownerId]);
    const response = await session.request({ method: 'GET', url: '/api/users/@me/' });
    assert.equal(response.statusCode, 401);
    assert.deepEqual(response.json(), SESSION_EXPIRED);
  });

  test('absolute limit: a session past its expiry is refused however busy it was', async () => {
    const session = await signIn(t);
    await t.db.pool.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [ownerId]);
    const response = await session.request({ method: 'GET', url: '/api/users/@me/' });
    assert.equal(response.statusCode, 401);
    const gone = await t.db.pool.query('SELECT 1 FROM sessions WHERE user_id = $1 AND expires_at < now()', [ownerId]);
    assert.ok(gone.rowCount! > 0);
    await signIn(t);
    const swept = await t.db.pool.query('SELECT 1 FROM sessions WHERE expires_at < now()');
    assert.equal(swept.rowCount, 0, 'a new sign-in sweeps expired sessions away');
  });
});

describe('one-time sign-in links', () => {
  test('the token signs in once; a second use, an unknown or an expired token → 400', async () => {
    const token = await inUnit(t.db.pool, (tx) => createSignInToken(tx, ownerId));
    const first = await t.request({ method: 'POST', url: '/api/login/one-time/', payload: { token }, key: null });
    assert.equal(first.statusCode, 200, first.body);
    const session = sessionOf(t, first);
    assert.equal((await session.request({ method: 'GET', url: '/api/users/@me/' })).json().email, OWNER_EMAIL);

    const again = await t.request({ method: 'POST', url: '/api/login/one-time/', payload: { token }, key: null });
    assert.equal(again.statusCode, 400);
    assert.equal(again.json().code, 'invalid_token');
    assert.equal(again.json().attr, 'token');

    const expired = await inUnit(t.db.pool, (tx) => createSignInToken(tx, ownerId));
    await t.db.pool.query(`UPDATE sign_in_tokens SET expires_at = now() - interval '1 second'`);
    const late = await t.request({ method: 'POST', url: '/api/login/one-time/', payload: { token: expired }, key: null });
    assert.equal(late.statusCode, 400);
    const unknown = await t.request({ method: 'POST', url: '/api/login/one-time/', payload: { token: 'made-up' }, key: null });
    assert.equal(unknown.statusCode, 400);
    const stored = await t.db.pool.query('SELECT token_hash FROM sign_in_tokens');
    assert.ok(stored.rows.every((row) => row.token_hash !== expired), 'stored hashed');
  });
});

describe('what the session never opens', () => {
  test('SDK and ingestion endpoints do not accept the session cookie', async () => {
    const session = await signIn(t);
    const { rows } = await t.db.pool.query('SELECT api_token FROM projects WHERE id = 1');
    const cases: { method: 'GET' | 'POST'; url: string; payload?: object }[] = [
      { method: 'GET', url: '/flags/definitions' },
      { method: 'GET', url: '/api/feature_flag/local_evaluation' },
      { method: 'GET', url: '/api/projects/1/feature_flags/local_evaluation' },
      { method: 'POST', url: '/flags?v=2', payload: { distinct_id: 'x' } },
      { method: 'POST', url: '/decide?v=4', payload: { distinct_id: 'x' } },
      { method: 'POST', url: '/ofrep/v1/evaluate/flags', payload: { context: { targetingKey: 'x' } } },
      { method: 'POST', url: '/batch/', payload: { batch: [{ event: 'e', distinct_id: 'x' }] } },
      { method: 'GET', url: '/api/surveys/' },
    ];
    for (const { method, url, payload } of cases) {
      const response = await session.request({ method, url, payload });
      assert.equal(response.statusCode, 401, `${method} ${url}: ${response.body}`);
    }
    // The same requests with the project token or a key work: the 401 above is the cookie's.
    const withToken = await t.request({ method: 'POST', url: '/flags?v=2', payload: { distinct_id: 'x', token: rows[0].api_token }, key: null });
    assert.equal(withToken.statusCode, 200);
    assert.equal((await t.request({ method: 'GET', url: '/flags/definitions' })).statusCode, 200);
  });
});

describe('Secure cookies behind a proxy', () => {
  let proxied: TestApp;
  before(async () => {
    proxied = await startTestApp({ trustProxy: true });
    await givePassword(proxied);
  });
  after(() => proxied.close());

  test('with TRUST_PROXY, X-Forwarded-Proto: https makes both cookies Secure', async () => {
    const response = await login(proxied, OWNER_EMAIL, GOOD_PASSWORD, { headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(cookie(response, 'bellwether_session')!.secure, true);
    assert.equal(cookie(response, 'bellwether_csrftoken')!.secure, true);
    const plain = await login(proxied, OWNER_EMAIL, GOOD_PASSWORD);
    assert.equal(cookie(plain, 'bellwether_session')!.secure, undefined);
  });

  test('without TRUST_PROXY the header is not believed', async () => {
    const response = await login(t, OWNER_EMAIL, GOOD_PASSWORD, { headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(cookie(response, 'bellwether_session')!.secure, undefined);
  });
});
