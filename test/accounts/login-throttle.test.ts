// Failed sign-ins are throttled per account and per client address, counted in PostgreSQL so that
// every process sharing the database counts the same.
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { DEFAULT_THROTTLE } from '../../src/accounts/sessions/throttle.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { givePassword, GOOD_PASSWORD, login, OWNER_EMAIL, personWithPassword } from '../helpers/session.ts';
import { currentOrganizationId } from './support.ts';

let t: TestApp;
let ownerId: number;
before(async () => {
  t = await startTestApp();
  ownerId = await givePassword(t);
});
after(() => t.close());
beforeEach(async () => {
  await t.db.pool.query('DELETE FROM login_failures');
});

function assertThrottled(response: Awaited<ReturnType<typeof login>>): number {
  assert.equal(response.statusCode, 429, response.body);
  const retryAfter = Number(response.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= DEFAULT_THROTTLE.windowMs / 1000, String(retryAfter));
  assert.deepEqual(response.json(), {
    type: 'throttled_error',
    code: 'throttled',
    detail: `Too many failed login attempts. Try again in ${retryAfter} seconds.`,
    attr: null,
  });
  return retryAfter;
}

test('ten wrong passwords for one account: the next attempt is a 429 with Retry-After, even with the right password', async () => {
  assert.equal(DEFAULT_THROTTLE.accountLimit, 10);
  for (let i = 0; i < 10; i += 1) {
    // From different addresses: the account's count alone must stop it.
    const response = await login(t, OWNER_EMAIL, `wrong-${i}`, { remoteAddress: `10.0.0.${i + 1}` });
    assert.equal(response.statusCode, 400, `attempt ${i + 1}`);
  }
  assertThrottled(await login(t, OWNER_EMAIL, 'wrong-again', { remoteAddress: '10.0.1.1' }));
  const right = await login(t, OWNER_EMAIL, GOOD_PASSWORD, { remoteAddress: '10.0.1.2' });
  assertThrottled(right);
  assert.equal(right.headers['set-cookie'], undefined);
  // The account is counted as typed, whatever its case: no way around by changing case.
  assertThrottled(await login(t, 'ADMIN@bellwether.local', GOOD_PASSWORD, { remoteAddress: '10.0.1.3' }));

  // Another account from the same addresses is not affected.
  const other = await login(t, 'someone-else@example.com', 'x', { remoteAddress: '10.0.1.1' });
  assert.equal(other.statusCode, 400);
});

/**
 * Spellings of one address that case folding may or may not join: the dotted capital I (U+0130),
 * a capital sigma that JavaScript lower-cases to a final sigma, the Kelvin sign (U+212A), and
 * 'ß' against 'ss'. Whatever PostgreSQL's lookup joins is one account for the throttle; what it
 * does not join cannot sign in at all.
 */
const FOLDING_PAIRS: [stored: string, typed: string][] = [
  ['kiki.wiki@a.test', 'k\u0130ki.wiki@a.test'],
  ['k\u03c3@a.test', 'K\u03a3@a.test'],
  ['kelvin@a.test', '\u212Aelvin@a.test'],
  ['strasse@a.test', 'stra\u00dfe@a.test'],
  ['stra\u00dfe@b.test', 'STRASSE@b.test'],
];

for (const [stored, typed] of FOLDING_PAIRS) {
  test(`ten failures as ${JSON.stringify(stored)}, then the right password as ${JSON.stringify(typed)}`, async () => {
    await personWithPassword(t, await currentOrganizationId(t), 'member', stored);
    const { rows } = await t.db.pool.query<{ joined: boolean }>('SELECT lower($1) = lower($2) AS joined', [stored, typed]);
    for (let i = 0; i < 10; i += 1) {
      assert.equal((await login(t, stored, `wrong-${i}`, { remoteAddress: `10.3.0.${i + 1}` })).statusCode, 400);
    }
    const right = await login(t, typed, GOOD_PASSWORD, { remoteAddress: '10.3.1.1' });
    if (rows[0].joined) assertThrottled(right);
    else assert.equal(right.json().code, 'invalid_credentials', right.body);
    // And the other way round: failures under the other spelling count against the same account.
    await t.db.pool.query('DELETE FROM login_failures');
    for (let i = 0; i < 10; i += 1) await login(t, typed, `wrong-${i}`, { remoteAddress: `10.3.2.${i + 1}` });
    const back = await login(t, stored, GOOD_PASSWORD, { remoteAddress: '10.3.3.1' });
    if (rows[0].joined) assertThrottled(back);
    else assert.equal(back.statusCode, 200, back.body);
  });
}

test('the machine\'s PostgreSQL joins the dotted capital I and the capital sigma (the folding test above is not vacuous)', async () => {
  const { rows } = await t.db.pool.query(
    "SELECT lower($1) = lower($2) AS dotted, lower($3) = lower($4) AS sigma",
    ['kiki.wiki@a.test', 'k\u0130ki.wiki@a.test', 'k\u03c3@a.test', 'K\u03a3@a.test'],
  );
  assert.deepEqual(rows[0], { dotted: true, sigma: true });
  assert.notEqual('k\u0130ki.wiki@a.test'.toLowerCase(), 'kiki.wiki@a.test', 'JavaScript folds it otherwise');
  assert.notEqual('K\u03a3@a.test'.toLowerCase(), 'k\u03c3@a.test', 'JavaScript folds it otherwise');
});

test('an unknown account is throttled exactly like a real one (no difference to observe)', async () => {
  for (let i = 0; i < 10; i += 1) {
    assert.equal((await login(t, 'ghost@example.com', 'x', { remoteAddress: `10.1.0.${i + 1}` })).statusCode, 400);
  }
  assertThrottled(await login(t, 'ghost@example.com', 'x', { remoteAddress: '10.1.1.1' }));
});

/** The address limit is 30 by default; these tests count to a smaller one (the same code path). */
const ADDRESS_LIMIT = 10;
const smallAddressLimit = { ...DEFAULT_THROTTLE, addressLimit: ADDRESS_LIMIT };

test('per address: failures on many accounts from one address throttle that address only', async () => {
  assert.ok(DEFAULT_THROTTLE.addressLimit >= DEFAULT_THROTTLE.accountLimit, 'one address may hold several people');
  const app = await buildApp({ pool: t.db.pool, databaseUrl: t.db.url, loginThrottle: smallAddressLimit });
  try {
    const attempt = (email: string, password: string, remoteAddress: string) =>
      app.inject({ method: 'POST', url: '/api/login/', payload: { email, password }, remoteAddress });
    for (let i = 0; i < ADDRESS_LIMIT; i += 1) {
      assert.equal((await attempt(`user${i}@example.com`, 'x', '192.0.2.7')).statusCode, 400, `attempt ${i + 1}`);
    }
    assertThrottled(await attempt(OWNER_EMAIL, GOOD_PASSWORD, '192.0.2.7'));
    const elsewhere = await attempt(OWNER_EMAIL, GOOD_PASSWORD, '192.0.2.8');
    assert.equal(elsewhere.statusCode, 200, elsewhere.body);
  } finally {
    await app.close();
  }
});

test('a successful sign-in forgets the account failures, not the address failures', async () => {
  for (let i = 0; i < 9; i += 1) await login(t, OWNER_EMAIL, 'wrong', { remoteAddress: '198.51.100.1' });
  assert.equal((await login(t, OWNER_EMAIL, GOOD_PASSWORD, { remoteAddress: '198.51.100.2' })).statusCode, 200);
  const { rows } = await t.db.pool.query<{ account: number; address: number }>(
    `SELECT count(*) FILTER (WHERE account = $1)::int AS account, count(*) FILTER (WHERE address = '198.51.100.1')::int AS address
       FROM login_failures`,
    [`user:${ownerId}`],
  );
  assert.deepEqual(rows[0], { account: 0, address: 9 });
});

test('Retry-After counts down to the moment the oldest counted failure leaves the window', async () => {
  for (let i = 0; i < 10; i += 1) await login(t, OWNER_EMAIL, 'wrong', { remoteAddress: '203.0.113.1' });
  // Age the failures: the window still holds them, with 60 seconds left.
  const windowSeconds = DEFAULT_THROTTLE.windowMs / 1000;
  await t.db.pool.query(`UPDATE login_failures SET attempted_at = now() - make_interval(secs => $1)`, [windowSeconds - 60]);
  const retryAfter = assertThrottled(await login(t, OWNER_EMAIL, GOOD_PASSWORD, { remoteAddress: '203.0.113.2' }));
  assert.ok(retryAfter <= 60 && retryAfter >= 55, String(retryAfter));
  // Out of the window: signing in works again.
  await t.db.pool.query(`UPDATE login_failures SET attempted_at = now() - make_interval(secs => $1)`, [windowSeconds + 1]);
  assert.equal((await login(t, OWNER_EMAIL, GOOD_PASSWORD, { remoteAddress: '203.0.113.2' })).statusCode, 200);
});

test('two processes sharing the database count the same failures', async () => {
  const second = await buildApp({ pool: t.db.pool, databaseUrl: t.db.url });
  try {
    const apps = [t.app, second];
    for (let i = 0; i < 10; i += 1) {
      const response = await apps[i % 2].inject({
        method: 'POST',
        url: '/api/login/',
        payload: { email: OWNER_EMAIL, password: 'wrong' },
        remoteAddress: `10.2.0.${i + 1}`,
      });
      assert.equal(response.statusCode, 400);
    }
    for (const app of apps) {
      const response = await app.inject({ method: 'POST', url: '/api/login/', payload: { email: OWNER_EMAIL, password: GOOD_PASSWORD } });
      assertThrottled(response);
    }
  } finally {
    await second.close();
  }
});

test('behind a trusted proxy the address is the client named by X-Forwarded-For', async () => {
  const proxied = await buildApp({ pool: t.db.pool, databaseUrl: t.db.url, trustProxy: true, loginThrottle: smallAddressLimit });
  try {
    for (let i = 0; i < ADDRESS_LIMIT; i += 1) {
      await proxied.inject({
        method: 'POST',
        url: '/api/login/',
        payload: { email: `p${i}@example.com`, password: 'x' },
        headers: { 'x-forwarded-for': '203.0.113.99' },
      });
    }
    const blocked = await proxied.inject({
      method: 'POST',
      url: '/api/login/',
      payload: { email: OWNER_EMAIL, password: GOOD_PASSWORD },
      headers: { 'x-forwarded-for': '203.0.113.99' },
    });
    assertThrottled(blocked);
    const otherClient = await proxied.inject({
      method: 'POST',
      url: '/api/login/',
      payload: { email: OWNER_EMAIL, password: GOOD_PASSWORD },
      headers: { 'x-forwarded-for': '203.0.113.100' },
    });
    assert.equal(otherClient.statusCode, 200, 'the proxy address itself (127.0.0.1) is not what is counted');
  } finally {
    await proxied.close();
  }
});
