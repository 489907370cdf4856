import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoundedCache } from '../../src/kernel/bounded-cache.ts';
import { cacheRequests } from '../../src/kernel/metrics/metrics.ts';

test('a full cache drops its least recently used entry, not everything', () => {
  const cache = new BoundedCache<number>({ max: 3, ttlMs: 60_000 });
  cache.set('a', 1);
  cache.set('b', 2);
  cache.set('c', 3);
  assert.equal(cache.get('a')?.value, 1); // a is now the most recently used
  cache.set('d', 4);
  assert.equal(cache.size, 3);
  assert.equal(cache.get('b'), undefined);
  assert.deepEqual(['a', 'c', 'd'].map((key) => cache.get(key)?.value), [1, 3, 4]);
});

test('an entry lives its TTL at most; a null value is remembered as found-nothing', () => {
  let now = 1_000;
  const cache = new BoundedCache<number | null>({ max: 10, ttlMs: 40, clock: () => now });
  cache.set('unknown-token', null);
  assert.deepEqual(cache.get('unknown-token'), { value: null });
  now += 40;
  assert.deepEqual(cache.get('unknown-token'), { value: null }, 'still fresh at exactly its TTL');
  now += 1;
  assert.equal(cache.get('unknown-token'), undefined);
  cache.set('later', 7);
  now += 39;
  assert.deepEqual(cache.get('later'), { value: 7 }, 'each entry counts from its own set');
});

test('delete and clear', () => {
  const cache = new BoundedCache<string>({ max: 10, ttlMs: 60_000 });
  cache.set('x', 'one');
  cache.set('y', 'two');
  cache.delete('x');
  assert.equal(cache.get('x'), undefined);
  cache.clear();
  assert.equal(cache.size, 0);
});

test('each lookup is counted once in the cache metric, across scrapes', async () => {
  const cache = new BoundedCache<number>({ max: 3, ttlMs: 60_000, metricName: 'bounded_cache_test' });
  const counted = async (result: 'hit' | 'miss') =>
    (await cacheRequests.get()).values.find((sample) => sample.labels.cache === 'bounded_cache_test' && sample.labels.result === result)?.value ?? 0;
  cache.get('a');
  cache.set('a', 1);
  cache.get('a');
  cache.get('a');
  assert.equal(await counted('hit'), 2);
  assert.equal(await counted('miss'), 1);
  // A second scrape adds only what was looked up since the first.
  cache.get('b');
  cache.get('a');
  assert.equal(await counted('hit'), 3);
  assert.equal(await counted('miss'), 2);
  assert.equal(await counted('hit'), 3);
});

test('onRemove hears every entry that leaves: evicted, expired, replaced, deleted, cleared', () => {
  let now = 1_000;
  const removed: string[] = [];
  const cache = new BoundedCache<number>({ max: 2, ttlMs: 10, clock: () => now, onRemove: (key, value) => removed.push(`${key}=${value}`) });
  cache.set('a', 1);
  cache.set('b', 2);
  cache.set('c', 3);
  assert.deepEqual(removed, ['a=1'], 'evicted');
  cache.set('b', 20);
  assert.deepEqual(removed, ['a=1', 'b=2'], 'replaced');
  cache.delete('c');
  assert.deepEqual(removed, ['a=1', 'b=2', 'c=3'], 'deleted');
  now += 11;
  assert.equal(cache.get('b'), undefined);
  assert.deepEqual(removed, ['a=1', 'b=2', 'c=3', 'b=20'], 'expired');
  cache.set('d', 4);
  cache.clear();
  assert.deepEqual(removed, ['a=1', 'b=2', 'c=3', 'b=20', 'd=4'], 'cleared');
});
