// The flag page's "Schedule a change" form (web/src/flags/schedule/schedule-form.ts) and the
// project-clock times it uses (web/src/lib/zoned-time.ts): the body it sends, what it refuses
// before sending, and a schedule in words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describePayload, describeRecurrence, isPaused, newScheduleForm, scheduleBody, type ScheduleForm } from '../../web/src/flags/schedule/schedule-form.ts';
import { formatInZone, knownZone, utcToZoned, zonedToUtc } from '../../web/src/lib/zoned-time.ts';

const booleanFlag = { id: 7, active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } };
const variantFlag = {
  id: 8,
  active: true,
  filters: {
    groups: [],
    multivariate: { variants: [{ key: 'control', name: 'Control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] },
    payloads: { control: '{"a":1}', gone: '{"b":2}' },
  },
};

const form = (changes: Partial<ScheduleForm>, flag: { active: boolean; filters: typeof booleanFlag.filters } = booleanFlag): ScheduleForm => ({
  ...newScheduleForm(flag, '2026-06-01T09:30'),
  ...changes,
});

test("wall-clock times are read on the project's clock, across daylight saving time", () => {
  assert.equal(zonedToUtc('2026-06-01T09:30', 'Asia/Tokyo'), '2026-06-01T00:30:00.000Z');
  assert.equal(zonedToUtc('2026-01-15T09:00', 'Europe/Paris'), '2026-01-15T08:00:00.000Z', 'winter: UTC+1');
  assert.equal(zonedToUtc('2026-07-15T09:00', 'Europe/Paris'), '2026-07-15T07:00:00.000Z', 'summer: UTC+2');
  assert.equal(zonedToUtc('2026-03-08T12:00', 'America/New_York'), '2026-03-08T16:00:00.000Z', 'the day the clocks go forward');
  assert.equal(zonedToUtc('2026-06-01T09:30', 'UTC'), '2026-06-01T09:30:00.000Z');
  assert.equal(zonedToUtc('', 'UTC'), null);
  assert.equal(zonedToUtc('2026-06-01 09:30', 'UTC'), null);
  assert.equal(utcToZoned('2026-06-01T00:30:00Z', 'Asia/Tokyo'), '2026-06-01T09:30');
  assert.equal(utcToZoned('2026-07-15T07:00:00Z', 'Europe/Paris'), '2026-07-15T09:00');
  assert.equal(knownZone('Not/AZone'), 'UTC', 'an unknown zone falls back to UTC, not an exception');
  assert.equal(knownZone(null), 'UTC');
  assert.equal(formatInZone(null, 'UTC'), '—');
});

test('turning a flag off once: update_status false at the UTC instant, no recurrence', () => {
  const built = scheduleBody(form({ operation: 'disable' }), booleanFlag, 'Asia/Tokyo');
  assert.ok('body' in built);
  assert.deepEqual(built.body, {
    record_id: '7',
    model_name: 'FeatureFlag',
    payload: { operation: 'update_status', value: false },
    scheduled_at: '2026-06-01T00:30:00.000Z',
    is_recurring: false,
    recurrence_interval: null,
    cron_expression: null,
    end_date: null,
  });
  assert.equal(newScheduleForm({ ...booleanFlag, active: false }).operation, 'enable', 'an off flag is offered "Turn on" first');
});

test('recurring: an interval or a cron with an end date; the end must come after the first run', () => {
  const weekly = scheduleBody(form({ operation: 'enable', repeat: 'interval', interval: 'weekly', endDate: '2026-07-01T00:00' }), booleanFlag, 'UTC');
  assert.ok('body' in weekly);
  assert.equal(weekly.body.is_recurring, true);
  assert.equal(weekly.body.recurrence_interval, 'weekly');
  assert.equal(weekly.body.cron_expression, null);
  assert.equal(weekly.body.end_date, '2026-07-01T00:00:00.000Z');

  const cron = scheduleBody(form({ repeat: 'cron', cron: '  0 18 * * 1-5 ' }), booleanFlag, 'UTC');
  assert.ok('body' in cron);
  assert.equal(cron.body.cron_expression, '0 18 * * 1-5');
  assert.equal(cron.body.recurrence_interval, null);

  assert.deepEqual(scheduleBody(form({ repeat: 'cron', cron: '0 18 * *' }), booleanFlag, 'UTC'), {
    issue: 'A cron expression has five fields: minute hour day month weekday, e.g. 0 9 * * 1-5.',
  });
  assert.deepEqual(scheduleBody(form({ repeat: 'interval', endDate: '2026-06-01T09:30' }), booleanFlag, 'UTC'), { issue: 'The end date must be after the first run.' });
  assert.deepEqual(scheduleBody(form({ when: '' }), booleanFlag, 'UTC'), { issue: 'Choose the date and time of the change.' });
  const once = scheduleBody(form({ repeat: 'once', endDate: '2026-07-01T00:00' }), booleanFlag, 'UTC');
  assert.ok('body' in once);
  assert.equal(once.body.end_date, null, 'a one-off change sends no end date');
});

test('adding a release condition sends the set as the flag filters write it, and cannot repeat', () => {
  const condition = { uid: 'g1', properties: [{ uid: 'p1', type: 'person', key: 'email', operator: 'icontains', value: '@acme.com', extra: {} }], rollout_percentage: 25, extra: {} };
  const built = scheduleBody(form({ operation: 'add_release_condition', condition }), booleanFlag, 'UTC');
  assert.ok('body' in built);
  assert.deepEqual(built.body.payload, {
    operation: 'add_release_condition',
    value: { groups: [{ properties: [{ key: 'email', type: 'person', operator: 'icontains', value: '@acme.com' }], rollout_percentage: 25 }] },
  });
  assert.deepEqual(scheduleBody(form({ operation: 'add_release_condition', condition, repeat: 'interval' }), booleanFlag, 'UTC'), {
    issue: 'Adding a release condition cannot repeat: every run would add it again.',
  });
});

test('a new variant split must add up to 100; names and the payloads of kept variants go with it', () => {
  const start = newScheduleForm(variantFlag, '2026-06-01T09:30');
  assert.deepEqual(start.variants, [{ key: 'control', rollout: 50 }, { key: 'test', rollout: 50 }]);
  assert.deepEqual(scheduleBody({ ...start, operation: 'update_variants', variants: [{ key: 'control', rollout: 50 }, { key: 'test', rollout: 60 }] }, variantFlag, 'UTC'), {
    issue: "The variants' rollouts add up to 110%: they must add up to 100%.",
  });
  const built = scheduleBody({ ...start, operation: 'update_variants', variants: [{ key: 'control', rollout: 30 }, { key: 'test', rollout: 70 }] }, variantFlag, 'UTC');
  assert.ok('body' in built);
  assert.deepEqual(built.body.payload, {
    operation: 'update_variants',
    value: { variants: [{ key: 'control', name: 'Control', rollout_percentage: 30 }, { key: 'test', rollout_percentage: 70 }], payloads: { control: '{"a":1}' } },
  });
});

test('a schedule in words: its change, its recurrence, paused', () => {
  assert.equal(describePayload({ operation: 'update_status', value: true }), 'Turn on');
  assert.equal(describePayload({ operation: 'update_status', value: 'false' }), 'Turn off');
  assert.equal(describePayload({ operation: 'add_release_condition', value: { groups: [{ properties: [], rollout_percentage: 20 }] } }), 'Add a release condition: 20% of everyone');
  assert.equal(describePayload({ operation: 'update_variants', value: { variants: [{ key: 'a', rollout_percentage: 100 }] } }), 'Set variants: a 100%');
  assert.equal(describePayload({ operation: 'explode' }), 'Unknown change (explode)');
  assert.equal(describePayload('nonsense'), 'Unreadable change');
  assert.equal(describeRecurrence({ is_recurring: true, recurrence_interval: 'daily', cron_expression: null }), 'Every day');
  assert.equal(describeRecurrence({ is_recurring: true, recurrence_interval: null, cron_expression: '0 9 * * 1-5' }), 'Cron 0 9 * * 1-5');
  assert.equal(describeRecurrence({ is_recurring: false, recurrence_interval: null, cron_expression: null }), 'Once');
  assert.equal(isPaused({ is_recurring: false, recurrence_interval: 'daily', cron_expression: null }), true);
  assert.equal(isPaused({ is_recurring: false, recurrence_interval: null, cron_expression: null }), false, 'a one-off change is not paused');
  assert.equal(isPaused({ is_recurring: true, recurrence_interval: 'daily', cron_expression: null }), false);
});
