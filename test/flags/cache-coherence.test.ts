import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createFlag, flagsUrl, patchFlag } from './flag-client.ts';
import { eventually } from '../helpers/eventually.ts';

// Two service instances on one database, as two processes would run: each has its own pool,
// cache and change-notice listener.
let a: TestApp;
let bPool: Pool;
let b: FastifyInstance;

before(async () => {
  a = await startTestApp();
  bPool = createPool(a.db.url, 4);
  b = await buildApp({ pool: bPool, databaseUrl: a.db.url });
  await b.ready();
});
after(async () => {
  await b.close();
  await bPool.end();
  await a.close();
});

const readOnB = (url: string, key = a.key) => b.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });

/** From now on the instance hears no change notice of other processes (as if each were lost), until restored. */
function silence(instance: FastifyInstance): { restore(): void } {
  const bus = instance.kernel.bus as unknown as { deliver: (payload: string | undefined) => void };
  const deliver = bus.deliver;
  bus.deliver = () => {};
  return { restore: () => void (bus.deliver = deliver) };
}

test('a change made through one instance is read through the other', async () => {
  const flag = await createFlag(a, { key: 'shared', name: 'first' });
  // B loads the project into its cache.
  assert.equal((await readOnB(`${flagsUrl()}${flag.id}/`)).json().name, 'first');

  // The management API reads its writes on every instance at once: no waiting for a notice.
  await patchFlag(a, flag.id, { name: 'second' });
  assert.equal((await readOnB(`${flagsUrl()}${flag.id}/`)).json().name, 'second', 'rename seen by B');

  const created = await createFlag(a, { key: 'shared-new' });
  assert.equal((await readOnB(`${flagsUrl()}?search=shared-new`)).json().count, 1, 'new flag listed by B');
  assert.equal((await readOnB(`${flagsUrl()}${created.id}/`)).statusCode, 200, 'new flag retrieved on B');

  await patchFlag(a, created.id, { deleted: true });
  assert.equal((await readOnB(`${flagsUrl()}?search=shared-new`)).json().count, 0, 'deletion seen by B');
  const again = await b.inject({
    method: 'POST',
    url: flagsUrl(),
    headers: { authorization: `Bearer ${a.key}` },
    payload: { key: 'shared-new' },
  });
  assert.equal(again.statusCode, 201, 'the key of a flag deleted on A is free on B');
});

test('with notices silenced, B still reads every write of A at once (the change counter, not the notice, proves it current)', async () => {
  const flag = await createFlag(a, { key: 'unheard', name: 'one' });
  assert.equal((await readOnB(`${flagsUrl()}${flag.id}/`)).json().name, 'one');
  const silenced = silence(b);
  try {
    for (let i = 0; i < 20; i++) {
      await patchFlag(a, flag.id, { name: `name-${i}` });
      assert.equal((await readOnB(`${flagsUrl()}${flag.id}/`)).json().name, `name-${i}`);
    }
    const created = await createFlag(a, { key: 'unheard-new' });
    assert.equal((await readOnB(`${flagsUrl()}${created.id}/`)).statusCode, 200);
    await patchFlag(a, created.id, { deleted: true });
    const listed = (await readOnB(`${flagsUrl()}?search=unheard`)).json();
    assert.deepEqual(listed.results.map((f: { key: string }) => f.key), ['unheard']);
  } finally {
    silenced.restore();
  }
});

test('a key deleted through one instance stops working on the other at once', async () => {
  const made = await a.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'short-lived', scopes: ['feature_flag:read'] } });
  const { id, value } = made.json();
  assert.equal((await readOnB(flagsUrl(), value)).statusCode, 200);
  assert.equal((await a.request({ method: 'DELETE', url: `/api/personal_api_keys/${id}/` })).statusCode, 204);
  assert.equal((await readOnB(flagsUrl(), value)).statusCode, 401, 'revocation seen by B');
});

test('with notices silenced, B refuses a key revoked on A and a member removed on A at once (the auth change counter)', async () => {
  const made = await a.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'unheard', scopes: ['feature_flag:read'] } });
  const { id, value } = made.json();
  assert.equal((await readOnB(flagsUrl(), value)).statusCode, 200, 'B caches the grant');
  const silenced = silence(b);
  try {
    assert.equal((await a.request({ method: 'DELETE', url: `/api/personal_api_keys/${id}/` })).statusCode, 204);
    assert.equal((await readOnB(flagsUrl(), value)).statusCode, 401, 'refused on B without any notice');
    assert.equal((await readOnB(flagsUrl())).statusCode, 200, 'other keys still work on B');
  } finally {
    silenced.restore();
  }
});

test('B writes, A reads: the cache of the instance that did not write follows too', async () => {
  const flag = await createFlag(a, { key: 'written-on-b' });
  const patched = await b.inject({
    method: 'PATCH',
    url: `${flagsUrl()}${flag.id}/`,
    headers: { authorization: `Bearer ${a.key}` },
    payload: { active: false },
  });
  assert.equal(patched.statusCode, 200);
  await eventually('B’s write seen by A', async () => (await a.request({ method: 'GET', url: `${flagsUrl()}${flag.id}/` })).json().active === false);
});
