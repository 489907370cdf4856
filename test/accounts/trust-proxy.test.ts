// TRUST_PROXY: the proxies' addresses or a hop count, the client found counting from the right of
// X-Forwarded-For, so a client behind an appending proxy (nginx's $proxy_add_x_forwarded_for)
// cannot choose the address the per-address sign-in throttle counts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { parseTrustProxy, trustProxyWarning, type TrustProxy } from '../../src/kernel/http/trust-proxy.ts';
import { DEFAULT_THROTTLE } from '../../src/accounts/sessions/throttle.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

describe('parsing TRUST_PROXY', () => {
  test('off, true, hop counts, addresses and CIDRs', () => {
    for (const off of [undefined, '', ' ', 'false', 'FALSE', '0']) assert.equal(parseTrustProxy(off), false);
    assert.equal(parseTrustProxy('true'), true);
    assert.equal(parseTrustProxy('1'), 1);
    assert.equal(parseTrustProxy('2'), 2);
    assert.deepEqual(parseTrustProxy('127.0.0.1'), ['127.0.0.1']);
    assert.deepEqual(parseTrustProxy(' 10.0.0.0/8, ::1 ,fd00::/8,loopback'), ['10.0.0.0/8', '::1', 'fd00::/8', 'loopback']);
  });

  test('anything else stops the start with what is wrong', () => {
    for (const bad of ['yes', 'proxy.example.com', '10.0.0.1/33', '::1/129', '10.0.0/8', '1.2.3.4/8/1', '99']) {
      assert.throws(() => parseTrustProxy(bad), /TRUST_PROXY/, bad);
    }
  });

  test('true is warned about at start; addresses and hop counts are not', () => {
    assert.match(trustProxyWarning(true) ?? '', /left-most X-Forwarded-For/);
    assert.equal(trustProxyWarning(['127.0.0.1']), null);
    assert.equal(trustProxyWarning(1), null);
    assert.equal(trustProxyWarning(false), null);
  });
});

describe('behind a proxy that appends to X-Forwarded-For', () => {
  let t: TestApp;
  const LIMIT = 5;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** Failed sign-ins from the client 203.0.113.50, each with another address the client wrote itself. */
  async function spoofingClient(trustProxy: TrustProxy) {
    await t.db.pool.query('DELETE FROM login_failures');
    const app = await buildApp({ pool: t.db.pool, databaseUrl: t.db.url, trustProxy, loginThrottle: { ...DEFAULT_THROTTLE, addressLimit: LIMIT } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT + 2; i += 1) {
        const response = await app.inject({
          method: 'POST',
          url: '/api/login/',
          payload: { email: `nobody-${i}@a.test`, password: 'wrong password' },
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': `198.51.100.${i + 1}, 203.0.113.50` },
        });
        statuses.push(response.statusCode);
      }
      const { rows } = await t.db.pool.query<{ address: string }>('SELECT DISTINCT address FROM login_failures');
      return { statuses, addresses: rows.map((r) => r.address) };
    } finally {
      await app.close();
    }
  }

  for (const [name, trust] of [['the proxy\'s address', ['127.0.0.1']], ['its CIDR', ['127.0.0.0/8']], ['a hop count of 1', 1]] as const) {
    test(`TRUST_PROXY as ${name}: the client's real address is counted and the throttle triggers`, async () => {
      const { statuses, addresses } = await spoofingClient(trust as TrustProxy);
      assert.deepEqual(addresses, ['203.0.113.50']);
      assert.deepEqual(statuses, [...Array(LIMIT).fill(400), 429, 429]);
    });
  }

  test('TRUST_PROXY=true believes the left-most entry (the documented risk): the client escapes the throttle', async () => {
    const { statuses, addresses } = await spoofingClient(true);
    assert.equal(addresses.length, LIMIT + 2);
    assert.ok(!statuses.includes(429));
  });

  test('a proxy not in the list is not believed: the socket address is counted', async () => {
    const { addresses } = await spoofingClient(['10.9.9.9']);
    assert.deepEqual(addresses, ['127.0.0.1']);
  });
});
