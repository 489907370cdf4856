// CoalescedRead: answers at least as new as the call, one read per batch of callers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CoalescedRead, type CoalescedReadOptions } from '../../src/kernel/coalesced-read.ts';

/** A source whose reads finish only when told to, recording the keys of each read and its value at start. */
function controlledSource(options: CoalescedReadOptions = {}) {
  let value = 0;
  const reads: { keys: number[]; value: number; finish: () => void }[] = [];
  const reader = new CoalescedRead<number, number>(
    (keys) =>
      new Promise((resolve) => {
        const at = value;
        reads.push({ keys, value: at, finish: () => resolve(new Map(keys.map((key) => [key, at]))) });
      }),
    options,
  );
  return { reader, reads, set: (next: number) => void (value = next) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('callers before the read goes share it; a caller during it does not join it but gathers into the next read, sent once it is done, which sees later writes', async () => {
  const { reader, reads, set } = controlledSource();
  const first = [reader.get(1), reader.get(2), reader.get(1)];
  await tick();
  assert.equal(reads.length, 1);
  assert.deepEqual(reads[0].keys, [1, 2]);

  // A write commits while the first read is under way; a caller asking now must see it.
  set(7);
  const late = [reader.get(1), reader.get(3)];
  await tick();
  assert.equal(reads.length, 1, 'one read under way at a time: the next waits for it');
  reads[0].finish();
  assert.deepEqual(await Promise.all(first), [0, 0, 0]);
  await tick();
  assert.equal(reads.length, 2, 'the next read goes once the first is done');
  assert.deepEqual(reads[1].keys, [1, 3]);
  reads[1].finish();
  assert.deepEqual(await Promise.all(late), [7, 7]);
  const since = performance.now() - 60_000;
  assert.equal(await reader.get(1, since), 7);
});

test('callers arriving during one read all share the next: one query for the lot', async () => {
  const { reader, reads } = controlledSource();
  const first = reader.get(1);
  await tick();
  const during: Promise<number>[] = [];
  for (let i = 0; i < 5; i++) {
    during.push(reader.get(1), reader.get(2));
    await tick();
  }
  assert.equal(reads.length, 1);
  reads[0].finish();
  await first;
  await tick();
  assert.equal(reads.length, 2);
  assert.deepEqual(reads[1].keys, [1, 2]);
  reads[1].finish();
  assert.equal((await Promise.all(during)).length, 10);
});

test('with two reads allowed under way, a caller during the first gets a read at once; an older read finishing last does not replace the newer answer', async () => {
  let value = 0;
  const reads: { keys: number[]; finish: () => void }[] = [];
  const reader = new CoalescedRead<number, number>(
    (keys) =>
      new Promise((resolve) => {
        const at = value;
        reads.push({ keys, finish: () => resolve(new Map(keys.map((key) => [key, at]))) });
      }),
    2,
  );
  const first = reader.get(1);
  await tick();
  value = 7;
  const late = reader.get(1);
  await tick();
  assert.equal(reads.length, 2);
  reads[1].finish();
  assert.equal(await late, 7);
  reads[0].finish();
  assert.equal(await first, 0);
  assert.equal(await reader.get(1, performance.now() - 60_000), 7);
});

test('a read sent after `since` answers without a query, done or under way; an older one does not', async () => {
  const { reader, reads, set } = controlledSource();
  const arrived = performance.now();
  set(3);
  const first = reader.get(5);
  await tick();
  assert.equal(reads.length, 1);
  // Another caller that arrived before that read was sent joins it while it is under way.
  const joined = reader.get(5, arrived);
  await tick();
  assert.equal(reads.length, 1);
  reads[0].finish();
  assert.deepEqual([await first, await joined], [3, 3]);
  // Done: still good for callers that arrived before it was sent, with no query.
  assert.equal(await reader.get(5, arrived), 3);
  assert.equal(reads.length, 1);
  // A caller arriving after it was sent needs a new read.
  set(4);
  const later = reader.get(5);
  await tick();
  assert.equal(reads.length, 2);
  reads[1].finish();
  assert.equal(await later, 4);
});

test('a failed read fails its callers only; the next callers get a new read, also those who gathered while it was under way', async () => {
  let fail: (error: Error) => void = () => {};
  let calls = 0;
  const failing = new CoalescedRead<string, number>((keys) => {
    calls++;
    if (calls === 1) return new Promise((_resolve, reject) => (fail = reject));
    return Promise.resolve(new Map(keys.map((key) => [key, calls])));
  });
  const first = failing.get('a');
  await tick();
  const during = failing.get('a');
  await tick();
  fail(new Error('database unavailable'));
  await assert.rejects(first, /database unavailable/);
  assert.equal(await during, 2);
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Two callers (two requests: distinct arrivals) answered by one read, which is then done. */
async function twoAnswered(source: ReturnType<typeof controlledSource>): Promise<void> {
  const answered = [source.reader.get(1, performance.now()), source.reader.get(2, performance.now() + 0.001)];
  await tick();
  assert.equal(source.reads.length, 1);
  source.reads[0].finish();
  await Promise.all(answered);
}

test('with gatherMs, the next read waits until as many callers as the last one answered have asked again, then goes at once and sees every write before them', async () => {
  const source = controlledSource({ gatherMs: 60_000 });
  const { reader, reads, set } = source;
  await twoAnswered(source);
  set(5);
  const first = reader.get(1);
  await tick();
  assert.equal(reads.length, 1, 'held: one of the two callers answered is back');
  set(6);
  const second = reader.get(2);
  await tick();
  assert.equal(reads.length, 2, 'both back: the read goes without waiting out gatherMs');
  assert.deepEqual(reads[1].keys, [1, 2]);
  reads[1].finish();
  assert.deepEqual([await first, await second], [6, 6]);
});

test('with gatherMs, the calls of one request (one arrival) count as one caller', async () => {
  const source = controlledSource({ gatherMs: 60_000 });
  const { reader, reads } = source;
  const arrived = performance.now();
  const answered = [reader.get(1, arrived), reader.get(2, arrived)];
  await tick();
  reads[0].finish();
  await Promise.all(answered);
  const next = reader.get(1);
  await tick();
  assert.equal(reads.length, 2, 'the one request answered is back: no hold');
  reads[1].finish();
  await next;
});

test('with gatherMs, a held read goes once gatherMs has passed since the last came back, and a caller later than that is not held', async () => {
  const source = controlledSource({ gatherMs: 20 });
  const { reader, reads, set } = source;
  await twoAnswered(source);
  set(3);
  const held = reader.get(1);
  await tick();
  assert.equal(reads.length, 1);
  await sleep(60);
  assert.equal(reads.length, 2, 'the other caller never came back: the read went after gatherMs');
  reads[1].finish();
  assert.equal(await held, 3);

  await sleep(60);
  const late = reader.get(1);
  await tick();
  assert.equal(reads.length, 3, 'asked long after the last read came back: sent at once');
  reads[2].finish();
  assert.equal(await late, 3);
});
