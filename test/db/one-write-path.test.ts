import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';

const SRC = new URL('../../src/', import.meta.url).pathname;

/**
 * Writes are kept inside units of work by their types (test/db/write-handles.typecheck.ts proves
 * it at the type check). What types cannot see: a transaction opened by hand, and a cast that
 * makes a write handle. Read snapshots are src/db's (read-snapshot.ts); outside src/db, a
 * transaction of one's own is only the survey jobs' lock (one that holds an advisory lock, writing nothing).
 */
const ALLOWED = new Set([
  'surveys/lifecycle/jobs.ts',
]);

test('every write runs in a unit of work: nothing else opens its own transaction', async () => {
  const files = (await readdir(SRC, { recursive: true })).filter((file) => file.endsWith('.ts') && !file.startsWith('db/'));
  const opening: string[] = [];
  for (const file of files) {
    const text = await readFile(join(SRC, file), 'utf8');
    if (/\bwithTransaction\b/.test(text) || /\.query\(\s*['"`]BEGIN\b/i.test(text)) opening.push(file);
  }
  assert.deepEqual(opening.filter((file) => !ALLOWED.has(file)).sort(), []);
  // The allowance shrinks with the code: a file that stopped opening transactions leaves the list.
  assert.deepEqual([...ALLOWED].filter((file) => !opening.includes(file)), []);
});

test('only src/db makes a write handle: no cast to WriteTx, PoolWrite or WriteHandle elsewhere', async () => {
  const files = (await readdir(SRC, { recursive: true })).filter((file) => file.endsWith('.ts') && !file.startsWith('db/'));
  const casting: string[] = [];
  for (const file of files) {
    const text = await readFile(join(SRC, file), 'utf8');
    if (/\bas\s+(unknown\s+as\s+)?(WriteTx|PoolWrite|WriteHandle)\b/.test(text)) casting.push(file);
  }
  assert.deepEqual(casting, []);
});
