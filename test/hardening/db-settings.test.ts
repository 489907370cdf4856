// What counts as "the database cannot serve now" (a 503), the listener's reconnection pace and the
// database settings: pure functions, no server.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { DEFAULT_DATABASE_TIMEOUTS } from '../../src/db/pool.ts';
import { isDatabaseUnavailable } from '../../src/db/unavailable.ts';
import { reconnectDelay } from '../../src/kernel/changes/bus.ts';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  test('server refusals that mean "not now" and lost connections', () => {
    for (const code of ['57014', '55P03', '57P01', '57P02', '57P03', '53300', '53100', '08006', '08001', '25P03', '40001', '40P01', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT']) {
      assert.equal(isDatabaseUnavailable(withCode(code)), true, code);
    }
    for (const message of [
      'Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'timeout exceeded when trying to connect',
      'Client has encountered a connection error and is not queryable',
      'Cannot use a pool after calling end on the pool',
    ]) {
      assert.equal(isDatabaseUnavailable(new Error(message)), true, message);
    }
    const refusedEverywhere = Object.assign(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]), { code: undefined });
    assert.equal(isDatabaseUnavailable(refusedEverywhere), true);
    assert.equal(isDatabaseUnavailable(new Error('migration failed', { cause: withCode('57P01') })), true);
  });

  test('errors of the request or the code stay what they are', () => {
    for (const code of ['23505', '23503', '22P02', '42P01', '54001', 'FST_ERR_CTP_INVALID_JSON_BODY']) {
      assert.equal(isDatabaseUnavailable(withCode(code)), false, code);
    }
    assert.equal(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')")), false);
    assert.equal(isDatabaseUnavailable(null), false);
    assert.equal(isDatabaseUnavailable('Connection terminated'), false);
    const loop: { cause?: unknown } = new Error('loop');
    loop.cause = loop;
    assert.equal(isDatabaseUnavailable(loop), false);
  });
});

describe('reconnectDelay', () => {
  test('doubles from 250 ms to at most 10 s, each wait between half and all of its step', () => {
    const low = (attempt: number) => reconnectDelay(attempt, 250, 10_000, () => 0);
    const high = (attempt: number) => reconnectDelay(attempt, 250, 10_000, () => 1);
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8, 100].map(high), [250, 500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000]);
    assert.deepEqual([1, 2, 7].map(low), [125, 250, 5_000]);
  });
});

describe('database settings', () => {
  test('defaults, values and refusals', () => {
    assert.deepEqual(loadConfig({}).databaseTimeouts, DEFAULT_DATABASE_TIMEOUTS);
    assert.deepEqual(DEFAULT_DATABASE_TIMEOUTS, { connectMs: 5_000, statementMs: 30_000, lockMs: 5_000, idleInTransactionMs: 60_000 });
    assert.equal(loadConfig({}).poolSize, 10);
    const set = loadConfig({
      DATABASE_CONNECT_TIMEOUT_MS: '2000',
      DATABASE_STATEMENT_TIMEOUT_MS: '0',
      DATABASE_LOCK_TIMEOUT_MS: '1500',
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '120000',
      DATABASE_POOL_SIZE: '20',
    });
    assert.deepEqual(set.databaseTimeouts, { connectMs: 2_000, statementMs: 0, lockMs: 1_500, idleInTransactionMs: 120_000 });
    assert.equal(set.poolSize, 20);
    assert.throws(() => loadConfig({ DATABASE_LOCK_TIMEOUT_MS: '5s' }), /DATABASE_LOCK_TIMEOUT_MS must be a whole number of milliseconds/);
    assert.throws(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '10' }), /at least 100/);
    assert.throws(() => loadConfig({ DATABASE_CONNECT_TIMEOUT_MS: '-1' }), /DATABASE_CONNECT_TIMEOUT_MS/);
    assert.throws(() => loadConfig({ DATABASE_POOL_SIZE: '1' }), /DATABASE_POOL_SIZE/);
  });
});
