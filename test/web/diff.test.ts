// The activity history's line diff (web/src/lib/diff.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffLines, diffValues, valueLines } from '../../web/src/lib/diff.ts';

const render = (lines: ReturnType<typeof diffLines>) => lines.map((line) => `${{ same: ' ', added: '+', removed: '-' }[line.kind]}${line.text}`);

test('a changed line shows as removed then added, the rest unchanged', () => {
  assert.deepEqual(render(diffLines(['a', 'b', 'c'], ['a', 'B', 'c'])), [' a', '-b', '+B', ' c']);
});

test('additions and removals at the ends', () => {
  assert.deepEqual(render(diffLines([], ['x'])), ['+x']);
  assert.deepEqual(render(diffLines(['x'], [])), ['-x']);
  assert.deepEqual(render(diffLines(['a'], ['a', 'b'])), [' a', '+b']);
});

test('JSON values diff by their indented lines; a rollout change is one line', () => {
  const before = { groups: [{ properties: [], rollout_percentage: 10 }] };
  const after = { groups: [{ properties: [], rollout_percentage: 50 }] };
  const changed = diffValues(before, after).filter((line) => line.kind !== 'same');
  assert.deepEqual(render(changed), ['-      "rollout_percentage": 10', '+      "rollout_percentage": 50']);
  assert.deepEqual(valueLines(undefined), []);
  assert.deepEqual(valueLines('one\ntwo'), ['one', 'two']);
});

test('huge values are shown whole instead of diffed (bounded work)', () => {
  const big = Array.from({ length: 2500 }, (_, i) => `line ${i}`);
  const lines = diffLines(big, [...big, 'more']);
  assert.equal(lines.length, 2500 * 2 + 1);
});
