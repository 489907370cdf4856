// The list's `deleted=true` (Bellwether): deleted flags only, archived or not, with the other filters;
// live flags otherwise. A bulk delete cannot use it (its filters are an allow-list).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createFlag, flagsUrl, patchFlag } from './flag-client.ts';

let t: TestApp;

async function keys(query: string): Promise<string[]> {
  const response = await t.request({ method: 'GET', url: `${flagsUrl()}?${query}` });
  assert.equal(response.statusCode, 200, response.body);
  return (response.json().results as Array<{ key: string }>).map((flag) => flag.key).sort();
}

before(async () => {
  t = await startTestApp();
  await createFlag(t, { key: 'live-one' });
  const gone = await createFlag(t, { key: 'gone-one' });
  const goneArchived = await createFlag(t, { key: 'gone-archived', active: false });
  assert.equal((await patchFlag(t, gone.id, { deleted: true })).statusCode, 200);
  assert.equal((await patchFlag(t, goneArchived.id, { archived: true })).statusCode, 200);
  assert.equal((await patchFlag(t, goneArchived.id, { deleted: true })).statusCode, 200);
});
after(async () => {
  await t.close();
});

test('deleted=true lists deleted flags only, archived ones too; absent or false lists live flags', async () => {
  assert.deepEqual(await keys('deleted=true'), ['gone-archived', 'gone-one']);
  assert.deepEqual(await keys(''), ['live-one']);
  assert.deepEqual(await keys('deleted=false'), ['live-one']);
  assert.deepEqual(await keys('deleted=true&search=archived'), ['gone-archived']);
});

test('a bulk delete refuses the deleted filter', async () => {
  const response = await t.request({ method: 'POST', url: `${flagsUrl()}bulk_delete/`, payload: { filters: { deleted: true } } });
  assert.equal(response.statusCode, 400, response.body);
});
