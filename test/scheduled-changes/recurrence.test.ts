import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failureText, storedFailure } from '../../src/scheduled-changes/failure.ts';
import { nextOccurrence, nextRunAfter, type Recurrence } from '../../src/scheduled-changes/recurrence.ts';
import { databaseUnavailable, validationError } from '../../src/kernel/errors.ts';

const every = (interval: Recurrence['recurrence_interval']): Recurrence => ({ recurrence_interval: interval, cron_expression: null, timezone: null });
const at = (iso: string) => new Date(iso);

test('intervals advance in UTC; months and years clamp to the last day and go on from there', () => {
  assert.equal(nextOccurrence(every('daily'), at('2026-03-28T09:00:00Z'))?.toISOString(), '2026-03-29T09:00:00.000Z');
  assert.equal(nextOccurrence(every('weekly'), at('2026-03-28T09:00:00Z'))?.toISOString(), '2026-04-04T09:00:00.000Z');
  const feb = nextOccurrence(every('monthly'), at('2026-01-31T10:00:00Z'))!;
  assert.equal(feb.toISOString(), '2026-02-28T10:00:00.000Z');
  assert.equal(nextOccurrence(every('monthly'), feb)?.toISOString(), '2026-03-28T10:00:00.000Z');
  assert.equal(nextOccurrence(every('yearly'), at('2028-02-29T00:00:00Z'))?.toISOString(), '2029-02-28T00:00:00.000Z');
});

test('cron runs in the schedule time zone: 09:00 local stays 09:00 across DST', () => {
  const paris: Recurrence = { recurrence_interval: null, cron_expression: '0 9 * * 1-5', timezone: 'Europe/Paris' };
  // Friday 27 March 2026 (CET, +01) → Monday 30 March (CEST, +02).
  assert.equal(nextOccurrence(paris, at('2026-03-27T08:00:00Z'))?.toISOString(), '2026-03-30T07:00:00.000Z');
  const unknownZone: Recurrence = { ...paris, timezone: 'Nowhere/Atlantis' };
  assert.equal(nextOccurrence(unknownZone, at('2026-03-27T09:00:00Z'))?.toISOString(), '2026-03-30T09:00:00.000Z', 'an unknown zone is UTC');
});

test('catch-up skips missed occurrences and counts them', () => {
  const now = at('2026-05-10T12:00:00Z');
  assert.deepEqual(nextRunAfter(every('daily'), at('2026-05-01T09:00:00Z'), now), { at: at('2026-05-11T09:00:00Z'), missed: 9 });
  assert.deepEqual(nextRunAfter(every('daily'), at('2026-05-10T09:00:00Z'), now), { at: at('2026-05-11T09:00:00Z'), missed: 0 });
  const far = nextRunAfter(every('daily'), at('2020-01-01T09:00:00Z'), now);
  assert.ok(far.at!.getTime() > now.getTime(), 'after 1000 steps it jumps past now');
});

test('failure_reason wording', () => {
  const permanent = storedFailure(validationError('Bad.'), 1);
  assert.equal(permanent.error_classification, 'unrecoverable');
  assert.equal(failureText(JSON.stringify(permanent)), 'Bad. (permanent error)');
  const first = storedFailure(databaseUnavailable(), 1);
  assert.equal(first.will_retry, true);
  assert.match(String(failureText(JSON.stringify(first))), / \(will retry automatically, 4 attempts remaining\)$/);
  assert.match(String(failureText(JSON.stringify(storedFailure(new Error('timeout'), 4)))), /^timeout \(will retry automatically, 1 attempt remaining\)$/);
  assert.equal(failureText(JSON.stringify(storedFailure(new Error('timeout'), 5))), 'timeout (failed after 5 out of 5 attempts)');
  assert.equal(failureText(JSON.stringify(storedFailure(new Error('duplicate key value violates unique constraint "x"'), 1))), 'duplicate key value violates unique constraint "x" (permanent error)');
  assert.equal(failureText('legacy text'), 'legacy text');
  assert.equal(failureText(null), null);
  assert.equal(failureText(JSON.stringify({ error: 'plain' })), 'plain');
});
