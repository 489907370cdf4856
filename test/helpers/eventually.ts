import assert from 'node:assert/strict';

export interface PollOptions {
  /** How long to keep reading; default 5 s. */
  timeoutMs?: number;
  /** Pause between reads; default 20 ms. */
  intervalMs?: number;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Reads `read` until `done` holds for its value (by default: until it reads `true`) and answers
 * that value; fails naming `what` and the last value read once `timeoutMs` has passed.
 */
export async function eventually<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean = (value) => value === true,
  { timeoutMs = 5_000, intervalMs = 20 }: PollOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  do {
    last = await read();
    if (done(last)) return last;
    await sleep(intervalMs);
  } while (Date.now() < deadline);
  assert.fail(`${what}: not within ${timeoutMs} ms; last read: ${JSON.stringify(last)}`);
}

/**
 * Proves an absence within a bounded time: reads `read` for `forMs` and fails at the first value
 * for which `happened` holds (a value that should never appear). Answers the last value read.
 */
export async function never<T>(
  what: string,
  read: () => Promise<T>,
  happened: (value: T) => boolean,
  { timeoutMs = 300, intervalMs = 20 }: PollOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  do {
    last = await read();
    assert.ok(!happened(last), `${what}: it happened (${JSON.stringify(last)})`);
    await sleep(intervalMs);
  } while (Date.now() < deadline);
  return last;
}
