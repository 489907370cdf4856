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

test('a change made through one instance is read through the other', async () => {
  const flag = await createFlag(a, { key: 'shared', name: 'first' });
  // B loads the project into its cache.
  assert.equal((await readOnB(`${flagsUrl()}${flag.id}/`)).json().name, 'first');

  await patchFlag(a, flag.id, { name: 'second' });
  await eventually('rename seen by B', async () => (await readOnB(`${flagsUrl()}${flag.id}/`)).json().name === 'second');

  const created = await createFlag(a, { key: 'shared-new' });
  await eventually('new flag listed by B', async () => (await readOnB(`${flagsUrl()}?search=shared-new`)).json().count === 1);

  await patchFlag(a, created.id, { deleted: true });
  await eventually('deletion seen by B', async () => (await readOnB(`${flagsUrl()}?search=shared-new`)).json().count === 0);
});

test('a key deleted through one instance stops working on the other at once', async () => {
  const made = await a.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'short-lived', scopes: ['feature_flag:read'] } });
  const { id, value } = made.json();
  assert.equal((await readOnB(flagsUrl(), value)).statusCode, 200);
  assert.equal((await a.request({ method: 'DELETE', url: `/api/personal_api_keys/${id}/` })).statusCode, 204);
  await eventually('revocation seen by B', async () => (await readOnB(flagsUrl(), value)).statusCode === 401);
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
