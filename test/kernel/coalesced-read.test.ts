// CoalescedRead: answers at least as new as the call, one read per batch of callers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CoalescedRead } from '../../src/kernel/coalesced-read.ts';

/** A source whose reads finish only when told to, recording the keys of each read and its value at start. */
function controlledSource() {
  let value = 0;
  const reads: { keys: number[]; value: number; finish: () => void }[] = [];
  const reader = new CoalescedRead<number, number>(
    (keys) =>
      new Promise((resolve) => {
        const at = value;
        reads.push({ keys, value: at, finish: () => resolve(new Map(keys.map((key) => [key, at]))) });
      }),
  );
  return { reader, reads, set: (next: number) => void (value = next) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('callers before the read starts share it; callers during it wait for the next, which sees later writes', async () => {
  const { reader, reads, set } = controlledSource();
  const first = [reader.get(1), reader.get(2), reader.get(1)];
  await tick();
  assert.equal(reads.length, 1);
  assert.deepEqual(reads[0].keys, [1, 2]);

  // A write commits while the first read is under way; a caller arriving now must see it.
  set(7);
  const late = [reader.get(1), reader.get(3)];
  await tick();
  assert.equal(reads.length, 1, 'no second read while the first is under way');
  reads[0].finish();
  assert.deepEqual(await Promise.all(first), [0, 0, 0]);
  await tick();
  assert.equal(reads.length, 2);
  assert.deepEqual(reads[1].keys, [1, 3]);
  reads[1].finish();
  assert.deepEqual(await Promise.all(late), [7, 7]);
});

test('a failed read fails its callers only; the next callers get a new read', async () => {
  let calls = 0;
  const reader = new CoalescedRead<string, number>(async (keys) => {
    calls++;
    if (calls === 1) throw new Error('database unavailable');
    return new Map(keys.map((key) => [key, calls]));
  });
  await assert.rejects(reader.get('a'), /database unavailable/);
  assert.equal(await reader.get('a'), 2);
});
