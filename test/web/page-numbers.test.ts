// The list pages' numbered pagination (web/src/lib/page-numbers.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageNumbers } from '../../web/src/lib/page-numbers.ts';

test('few pages: every number, no gap', () => {
  assert.deepEqual(pageNumbers(1, 1), [1]);
  assert.deepEqual(pageNumbers(2, 5), [1, 2, 3, 4, 5]);
});

test('many pages: the first, the last and two either side of the current one, gaps as null', () => {
  assert.deepEqual(pageNumbers(1, 20), [1, 2, 3, null, 20]);
  assert.deepEqual(pageNumbers(10, 20), [1, null, 8, 9, 10, 11, 12, null, 20]);
  assert.deepEqual(pageNumbers(20, 20), [1, null, 18, 19, 20]);
});

test('a gap of one page shows that page instead of an ellipsis', () => {
  assert.deepEqual(pageNumbers(5, 20), [1, 2, 3, 4, 5, 6, 7, null, 20]);
  assert.deepEqual(pageNumbers(16, 20), [1, null, 14, 15, 16, 17, 18, 19, 20]);
});

test('a current page outside the range shows only the pages that exist', () => {
  assert.deepEqual(pageNumbers(0, 3), [1, 2, 3]);
  assert.deepEqual(pageNumbers(9, 3), [1, 2, 3]);
  assert.deepEqual(pageNumbers(9, 30), [1, null, 7, 8, 9, 10, 11, null, 30]);
});
