import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertValidation, keyWith, otherProject } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { newFlag, postSchedule, schedule, schedulesUrl, type Json } from './client.ts';

let t: TestApp;
let flagId: number;
const future = '2030-06-01T14:00:00Z';
const off = { operation: 'update_status', value: false };

before(async () => {
  t = await startTestApp();
  flagId = (await newFlag(t)).id as number;
});
after(async () => {
  await t.close();
});

test('create answers PostHog fields in order; the project timezone is copied; created_by is the caller', async () => {
  await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/`, payload: { timezone: 'Europe/Paris' } });
  const body = await schedule(t, { record_id: `00${flagId}`, model_name: 'FeatureFlag', payload: off, scheduled_at: future });
  assert.deepEqual(Object.keys(body), [
    'id', 'team_id', 'record_id', 'model_name', 'payload', 'scheduled_at', 'executed_at', 'failure_reason', 'created_at',
    'created_by', 'updated_at', 'is_recurring', 'recurrence_interval', 'cron_expression', 'last_executed_at', 'end_date', 'timezone',
  ]);
  assert.equal(typeof body.id, 'number');
  assert.equal(body.team_id, t.projectId);
  assert.equal(body.record_id, String(flagId), 'record_id is stored as the canonical flag id');
  assert.deepEqual(body.payload, off);
  assert.equal(Date.parse(String(body.scheduled_at)), Date.parse('2030-06-01T14:00:00Z'));
  assert.equal(body.executed_at, null);
  assert.equal(body.failure_reason, null);
  assert.equal(body.is_recurring, false);
  assert.equal(body.timezone, 'Europe/Paris');
  assert.equal((body.created_by as Json).email, 'admin@bellwether.local');
});

test('the payload is not checked at create (it fails when it runs)', async () => {
  const response = await postSchedule(t, { record_id: String(flagId), model_name: 'FeatureFlag', payload: { field: 'active', value: 'false' }, scheduled_at: future });
  assert.equal(response.statusCode, 201, response.body);
});

test('field checks in DRF words', async () => {
  const base = { record_id: String(flagId), model_name: 'FeatureFlag', payload: off, scheduled_at: future };
  assertValidation(await postSchedule(t, { ...base, model_name: 'Survey' }), '"Survey" is not a valid choice.', 'model_name', 'invalid_choice');
  assertValidation(await postSchedule(t, { ...base, scheduled_at: 'tomorrow' }), 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].', 'scheduled_at');
  assertValidation(await postSchedule(t, { model_name: 'FeatureFlag', payload: off, scheduled_at: future }), 'This field is required.', 'record_id', 'required');
  assertValidation(await postSchedule(t, { ...base, payload: undefined }), 'This field is required.', 'payload', 'required');
  assertValidation(await postSchedule(t, { ...base, record_id: 'x'.repeat(201) }), 'Ensure this field has no more than 200 characters.', 'record_id', 'max_length');
  assertValidation(await postSchedule(t, { ...base, recurrence_interval: 'hourly', is_recurring: true }), '"hourly" is not a valid choice.', 'recurrence_interval', 'invalid_choice');
});

test('rules in order, with their messages', async () => {
  const base = { record_id: String(flagId), model_name: 'FeatureFlag', payload: off, scheduled_at: future };
  assertValidation(
    await postSchedule(t, { ...base, is_recurring: true, recurrence_interval: 'daily', cron_expression: '0 9 * * *' }),
    'Cannot set both cron_expression and recurrence_interval. Use one or the other.',
    'cron_expression',
  );
  assertValidation(
    await postSchedule(t, { ...base, is_recurring: true, cron_expression: '0 0 9 * * 1-5' }),
    "Only standard 5-field cron expressions are supported (minute hour day month weekday). Example: '0 9 * * 1-5'.",
    'cron_expression',
  );
  assertValidation(
    await postSchedule(t, { ...base, is_recurring: true, cron_expression: '99 99 99 99 99' }),
    "Invalid cron expression. Use standard 5-field cron syntax (e.g., '0 9 * * 1-5').",
    'cron_expression',
  );
  assertValidation(
    await postSchedule(t, { ...base, is_recurring: true }),
    'Either recurrence_interval or cron_expression is required when is_recurring is true.',
    'recurrence_interval',
  );
  assertValidation(
    await postSchedule(t, { ...base, is_recurring: true, recurrence_interval: 'daily', payload: { operation: 'add_release_condition', value: { groups: [] } } }),
    'Recurring schedules are not supported for add_release_condition because it appends conditions on each run, creating duplicates.',
    'payload',
  );
  assertValidation(await postSchedule(t, { ...base, recurrence_interval: 'weekly' }), 'Cannot set recurrence_interval when is_recurring is false for new schedules.', 'recurrence_interval');
  assertValidation(await postSchedule(t, { ...base, cron_expression: '0 9 * * *' }), 'Cannot set cron_expression when is_recurring is false for new schedules.', 'cron_expression');
  assertValidation(await postSchedule(t, { ...base, end_date: future }), 'End date must be after the scheduled start date.', 'end_date');
  assertValidation(await postSchedule(t, { ...base, record_id: '999999' }), 'Feature flag not found', null);
  assertValidation(await postSchedule(t, { ...base, record_id: 'abc' }), 'Feature flag not found', null);
});

test('a flag of another project is not found', async () => {
  const other = await otherProject(t);
  const response = await t.request({
    method: 'POST',
    url: `/api/projects/${other}/scheduled_changes/`,
    payload: { record_id: String(flagId), model_name: 'FeatureFlag', payload: off, scheduled_at: future },
  });
  assertValidation(response, 'Feature flag not found', null);
});

test('list filters by model_name and record_id; retrieve; 404 for unknown ids', async () => {
  const second = (await newFlag(t)).id as number;
  const mine = await schedule(t, { record_id: String(second), model_name: 'FeatureFlag', payload: off, scheduled_at: future });
  const list = (await t.request({ method: 'GET', url: `${schedulesUrl(t)}?model_name=FeatureFlag&record_id=${second}` })).json();
  assert.equal(list.count, 1);
  assert.equal(list.results[0].id, mine.id);
  assert.equal(list.next, null);
  const all = (await t.request({ method: 'GET', url: `${schedulesUrl(t)}?limit=1` })).json();
  assert.ok(all.count >= 3);
  assert.equal(all.results.length, 1);
  assert.ok(all.next);
  assert.equal((await t.request({ method: 'GET', url: `${schedulesUrl(t)}?model_name=Survey` })).json().count, 0);
  assert.equal((await t.request({ method: 'GET', url: `${schedulesUrl(t)}${mine.id}/` })).json().id, mine.id);
  assert.equal((await t.request({ method: 'GET', url: `${schedulesUrl(t)}123456789/` })).statusCode, 404);
  assert.equal((await t.request({ method: 'GET', url: `${schedulesUrl(t)}nope/` })).statusCode, 404);
});

test('update: target and model are fixed; recurrence pauses and resumes', async () => {
  const row = await schedule(t, { record_id: String(flagId), model_name: 'FeatureFlag', payload: off, scheduled_at: future, is_recurring: true, recurrence_interval: 'daily' });
  const url = `${schedulesUrl(t)}${row.id}/`;
  const other = (await newFlag(t)).id as number;
  assertValidation(await t.request({ method: 'PATCH', url, payload: { record_id: String(other) } }), 'Cannot change the target record of an existing scheduled change.', 'record_id');
  const paused = await t.request({ method: 'PATCH', url, payload: { is_recurring: false } });
  assert.equal(paused.statusCode, 200, paused.body);
  assert.equal(paused.json().is_recurring, false);
  assert.equal(paused.json().recurrence_interval, 'daily', 'pausing keeps the recurrence');
  const resumed = await t.request({ method: 'PATCH', url, payload: { is_recurring: true } });
  assert.equal(resumed.json().is_recurring, true);
  const moved = await t.request({ method: 'PATCH', url, payload: { scheduled_at: '2031-01-01T00:00:00+02:00' } });
  assert.equal(Date.parse(moved.json().scheduled_at), Date.parse('2030-12-31T22:00:00Z'));
  assertValidation(await t.request({ method: 'PUT', url, payload: { payload: off } }), 'This field is required.', 'record_id', 'required');
});

test('delete is a hard delete: 204 then 404', async () => {
  const row = await schedule(t, { record_id: String(flagId), model_name: 'FeatureFlag', payload: off, scheduled_at: future });
  const url = `${schedulesUrl(t)}${row.id}/`;
  assert.equal((await t.request({ method: 'DELETE', url })).statusCode, 204);
  assert.equal((await t.request({ method: 'GET', url })).statusCode, 404);
  assert.equal((await t.request({ method: 'DELETE', url })).statusCode, 404);
});

test('API keys: feature_flag:read reads, feature_flag:write writes, other scopes are refused', async () => {
  const reader = await keyWith(t, ['feature_flag:read']);
  const writer = await keyWith(t, ['feature_flag:write']);
  const unrelated = await keyWith(t, ['survey:read']);
  const body = { record_id: String(flagId), model_name: 'FeatureFlag', payload: off, scheduled_at: future };
  assert.equal((await t.request({ method: 'GET', url: schedulesUrl(t), key: reader })).statusCode, 200);
  assert.equal((await postSchedule(t, body, reader)).statusCode, 403);
  assert.equal((await postSchedule(t, body, writer)).statusCode, 201);
  assert.equal((await t.request({ method: 'GET', url: schedulesUrl(t), key: unrelated })).statusCode, 403);
  assert.equal((await t.request({ method: 'GET', url: schedulesUrl(t), key: null })).statusCode, 401);
});
