import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProjectCache } from '../../src/kernel/project-cache.ts';

function controlledLoader() {
  const pending: ((value: string) => void)[] = [];
  let loads = 0;
  const loader = (projectId: number) =>
    new Promise<string>((resolve) => {
      loads++;
      pending.push((suffix) => resolve(`project ${projectId} ${suffix}`));
    });
  return { loader, pending, loadCount: () => loads };
}

test('loads once per project for concurrent callers and keeps the value', async () => {
  const { loader, pending, loadCount } = controlledLoader();
  const cache = new ProjectCache(loader);
  const a = cache.get(1);
  const b = cache.get(1);
  pending.shift()!('v1');
  assert.equal(await a, 'project 1 v1');
  assert.equal(await b, 'project 1 v1');
  assert.equal(cache.get(1), 'project 1 v1');
  assert.equal(loadCount(), 1);
});

test('a change during a load discards what that load read, and it is read again', async () => {
  const { loader, pending, loadCount } = controlledLoader();
  const cache = new ProjectCache(loader);
  const value = cache.get(1);
  cache.changed(1);
  pending.shift()!('stale');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(loadCount(), 2);
  pending.shift()!('fresh');
  assert.equal(await value, 'project 1 fresh');
  assert.equal(cache.peek(1), 'project 1 fresh');
});

test('clear while a load is in flight: the load is not kept', async () => {
  const { loader, pending } = controlledLoader();
  const cache = new ProjectCache(loader);
  const value = cache.get(2);
  cache.clear();
  pending.shift()!('before clear');
  await new Promise((resolve) => setImmediate(resolve));
  pending.shift()!('after clear');
  assert.equal(await value, 'project 2 after clear');
  cache.drop(2);
  assert.equal(cache.peek(2), undefined);
});
