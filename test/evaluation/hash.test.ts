import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { flagHash, holdoutHash, inRollout, pickVariant } from '../../src/evaluation/index.ts';

/** PostHog's bucketing recipe, written out independently of the engine. */
function expectedHash(text: string): number {
  const hex = createHash('sha1').update(text).digest('hex').slice(0, 15);
  return Number(BigInt(`0x${hex}`)) / 1152921504606846975;
}

describe('bucketing hash', () => {
  test('matches sha1(key.identifier+salt) / (2^60 - 1) for many inputs', () => {
    for (let i = 0; i < 500; i++) {
      const key = `flag-${i % 17}`;
      const id = `user-${i}-${'é'.repeat(i % 3)}`;
      assert.equal(flagHash(key, id), expectedHash(`${key}.${id}`));
      assert.equal(flagHash(key, id, 'variant'), expectedHash(`${key}.${id}variant`));
      assert.equal(holdoutHash(id), expectedHash(`holdout-${id}`));
    }
  });

  // Known values, checked against posthog-node 5.70.0 (@posthog/core getFeatureFlagHash); the
  // differential test checks the rest against the real SDKs at run time.
  test('known PostHog vectors', () => {
    assert.equal(flagHash('some-flag', 'some_distinct_id'), 0.8937694017077238);
    assert.equal(flagHash('some-flag', 'test-identifier'), 0.5410549923538545);
    assert.equal(flagHash('some-flag', 'example_id'), 0.3327960435872774);
    assert.equal(flagHash('some-flag', 'example_id', 'variant'), 0.14486941947456308);
    assert.equal(flagHash('multivariate-flag', 'user-1', 'variant'), 0.30281816997820665);
    // 0.727… is the holdout hash of some_distinct_id (sha1 of "holdout-some_distinct_id"), not _hash('some-flag', …).
    assert.equal(holdoutHash('some_distinct_id'), 0.7270002403585725);
  });

  test('rollout passes when hash <= percentage / 100; null is 100 %', () => {
    const hash = flagHash('some-flag', 'example_id'); // 0.3327…
    assert.equal(inRollout('some-flag', 'example_id', 33.28), true);
    assert.equal(inRollout('some-flag', 'example_id', 33.27), false);
    assert.equal(inRollout('some-flag', 'example_id', null), true);
    assert.equal(inRollout('some-flag', 'example_id', 100), true);
    assert.equal(inRollout('some-flag', 'example_id', 0), hash === 0);
  });

  test('variants take consecutive [min, max) ranges in order', () => {
    // variant hash for some-flag/example_id is 0.1448…
    const pick = (...pcts: number[]) =>
      pickVariant('some-flag', 'example_id', pcts.map((p, i) => ({ key: `v${i}`, rollout_percentage: p })));
    assert.equal(pick(50, 50), 'v0');
    assert.equal(pick(14, 86), 'v1');
    assert.equal(pick(14.4, 0.1, 85.5), 'v1');
    assert.equal(pick(10, 4), null, 'sum below the hash: no variant');
    assert.equal(pick(0, 14.49, 0, 85.51), 'v1', '0% variants take no range');
    assert.equal(pickVariant('some-flag', 'example_id', []), null);
  });
});
