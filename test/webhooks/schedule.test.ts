import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_ATTEMPTS, nominalRetryDelay, retryDelay } from '../../src/webhooks/delivery/schedule.ts';

test('the documented schedule: 15 s × 4^(n−1) up to 8 h, nine attempts over about 22 h', () => {
  const minutes = Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => nominalRetryDelay(i + 1) / 60_000);
  assert.deepEqual(minutes, [0.25, 1, 4, 16, 64, 256, 480, 480]);
  const total = minutes.reduce((sum, each) => sum + each, 0) / 60;
  assert.ok(total > 21 && total < 22.5, `${total} h`);
  assert.equal(retryDelay(MAX_ATTEMPTS), null);
});

test('each wait is jittered within ±20 % of its step', () => {
  for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
    const nominal = nominalRetryDelay(attempt);
    assert.equal(retryDelay(attempt, () => 0), Math.round(nominal * 0.8));
    assert.equal(retryDelay(attempt, () => 1), Math.round(nominal * 1.2));
    const drawn = retryDelay(attempt)!;
    assert.ok(drawn >= nominal * 0.8 && drawn <= nominal * 1.2);
  }
});
