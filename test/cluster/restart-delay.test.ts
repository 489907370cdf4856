import assert from 'node:assert/strict';
import { test } from 'node:test';
import { restartDelay } from '../../src/cluster/primary.ts';

test('a worker that lived long is replaced at once; a crash loop backs off, doubling up to 30 s', () => {
  assert.equal(restartDelay(0), 0);
  assert.deepEqual([1, 2, 3, 4, 5].map(restartDelay), [500, 1_000, 2_000, 4_000, 8_000]);
  assert.equal(restartDelay(7), 30_000);
  assert.equal(restartDelay(1_000), 30_000);
});
