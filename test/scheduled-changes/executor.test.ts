import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { ScheduledChangeExecutor } from '../../src/scheduled-changes/executor.ts';
import { InteractiveWrites, QUIET_GAP_MS } from '../../src/scheduled-changes/yield.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { eventually } from '../helpers/eventually.ts';
import { getSchedule, newFlag, readFlag, schedule, type Json } from './client.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

const DAY = 86_400_000;
const past = (ms: number) => new Date(Date.now() - ms).toISOString();

async function scheduleOn(flagId: unknown, payload: unknown, extra: Json = {}): Promise<Json> {
  return schedule(t, { record_id: String(flagId), model_name: 'FeatureFlag', payload, scheduled_at: past(1000), ...extra });
}

async function flagActivity(flagId: unknown): Promise<Json[]> {
  const response = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/${flagId}/activity/` });
  return response.json().results as Json[];
}

describe('one-time changes', () => {
  test('a due update_status is applied once, as its creator, with the schedule as the activity trigger', async () => {
    const flag = await newFlag(t);
    const row = await scheduleOn(flag.id, { operation: 'update_status', value: false });
    const results = await t.app.scheduledChanges.runOnce();
    assert.deepEqual(results.filter((r) => r.id === row.id).map((r) => r.outcome), ['applied']);
    const after = await readFlag(t, flag.id);
    assert.equal(after.active, false);
    assert.equal(after.version, (flag.version as number) + 1);
    assert.equal((after.last_modified_by as Json).email, 'admin@bellwether.local');
    const stored = await getSchedule(t, row.id);
    assert.ok(stored.executed_at);
    assert.equal(stored.last_executed_at, null);
    assert.equal(stored.failure_reason, null);
    const [entry] = await flagActivity(flag.id);
    assert.equal(entry.activity, 'updated');
    assert.equal((entry.user as Json).email, 'admin@bellwether.local');
    const detail = entry.detail as Json;
    assert.deepEqual(detail.trigger, { job_type: 'scheduled_change', job_id: String(row.id), payload: { scheduled_change_id: row.id } });
    assert.ok((detail.changes as Json[]).some((c) => c.field === 'active' && c.before === true && c.after === false));
    // A second round finds nothing to do.
    assert.deepEqual((await t.app.scheduledChanges.runOnce()).filter((r) => r.id === row.id), []);
    assert.equal((await readFlag(t, flag.id)).version, after.version);
  });

  test('a change not yet due is left alone', async () => {
    const flag = await newFlag(t);
    const row = await schedule(t, { record_id: String(flag.id), model_name: 'FeatureFlag', payload: { operation: 'update_status', value: false }, scheduled_at: new Date(Date.now() + DAY).toISOString() });
    await t.app.scheduledChanges.runOnce();
    assert.equal((await readFlag(t, flag.id)).active, true);
    assert.equal((await getSchedule(t, row.id)).executed_at, null);
    // At its time it runs.
    await t.app.scheduledChanges.runOnce(new Date(Date.now() + DAY + 1000));
    assert.equal((await readFlag(t, flag.id)).active, false);
  });

  test('add_release_condition appends to the groups the flag has when it runs (an edit made after scheduling is kept)', async () => {
    const flag = await newFlag(t);
    await scheduleOn(flag.id, { operation: 'add_release_condition', value: { groups: [{ properties: [{ key: 'email', type: 'person', value: ['a@b.c'], operator: 'exact' }], rollout_percentage: 100 }] } });
    // Edited after scheduling: a new name and a 30 % rollout.
    const edit = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/${flag.id}/`, payload: { name: 'renamed', filters: { groups: [{ properties: [], rollout_percentage: 30 }] } } });
    assert.equal(edit.statusCode, 200, edit.body);
    await t.app.scheduledChanges.runOnce();
    const after = await readFlag(t, flag.id);
    assert.equal(after.name, 'renamed');
    const groups = (after.filters as Json).groups as Json[];
    assert.equal(groups.length, 2);
    assert.equal(groups[0].rollout_percentage, 30);
    assert.equal(((groups[1].properties as Json[])[0] as Json).key, 'email');
  });

  test('update_status after a manual edit sets only active; the other edits stay', async () => {
    const flag = await newFlag(t);
    await scheduleOn(flag.id, { operation: 'update_status', value: 'false' });
    await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/${flag.id}/`, payload: { name: 'edited later' } });
    await t.app.scheduledChanges.runOnce();
    const after = await readFlag(t, flag.id);
    assert.equal(after.active, false);
    assert.equal(after.name, 'edited later');
  });

  test('update_variants replaces the variants and payloads', async () => {
    const flag = await newFlag(t, {
      filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] } },
    });
    await scheduleOn(flag.id, { operation: 'update_variants', value: { variants: [{ key: 'a', rollout_percentage: 10 }, { key: 'b', rollout_percentage: 90 }], payloads: { a: '{"x":1}' } } });
    await t.app.scheduledChanges.runOnce();
    const filters = (await readFlag(t, flag.id)).filters as Json;
    assert.deepEqual(((filters.multivariate as Json).variants as Json[]).map((v) => v.rollout_percentage), [10, 90]);
    assert.deepEqual(filters.payloads, { a: '{"x":1}' });
  });

  test('permanent failures: the row is finished with failure_reason in PostHog words, the flag untouched', async () => {
    const flag = await newFlag(t);
    const cases: [unknown, string][] = [
      [{ field: 'active', value: 'false' }, 'Invalid payload (permanent error)'],
      [{ operation: 'explode', value: 1 }, 'Unrecognized operation: explode (permanent error)'],
      [{ operation: 'update_variants', value: { variants: [{ key: 'a', rollout_percentage: 60 }] } }, 'Invalid variant rollout percentages: sum is 60, must be 100 (permanent error)'],
      [
        { operation: 'update_variants', value: { variants: [{ key: 'a', rollout_percentage: 100 }], payloads: { z: '1' } } },
        "Payload keys {'z'} don't match variant keys {'a'} (permanent error)",
      ],
    ];
    const rows = [];
    for (const [payload] of cases) rows.push(await scheduleOn(flag.id, payload));
    await t.app.scheduledChanges.runOnce();
    for (const [index, [, reason]] of cases.entries()) {
      const stored = await getSchedule(t, rows[index].id);
      assert.equal(stored.failure_reason, reason);
      assert.ok(stored.executed_at, 'a permanent failure finishes the row');
    }
    assert.equal((await readFlag(t, flag.id)).version, flag.version);
  });

  test('a batch with a failing change: the others are applied with one activity entry and one webhook message each, the failed one leaves neither', async () => {
    // An endpoint stored as the API stores one (the API would resolve its host first).
    const { rows: [{ id: hookId }] } = await t.db.pool.query<{ id: string }>(
      `INSERT INTO webhook_endpoints (project_id, url, events, format, secret, secret_mask) VALUES ($1, 'https://hooks.example.com/in', '{feature_flag.updated}', 'json', 'whsec_x', 'whsec_x') RETURNING id`,
      [t.projectId],
    );
    const flags = [await newFlag(t), await newFlag(t), await newFlag(t)];
    const applied = [await scheduleOn(flags[0].id, { operation: 'update_status', value: false }), await scheduleOn(flags[2].id, { operation: 'update_status', value: false })];
    const failed = await scheduleOn(flags[1].id, { operation: 'explode', value: 1 });
    await t.app.scheduledChanges.runOnce();
    assert.match(String((await getSchedule(t, failed.id)).failure_reason), /permanent error/);
    assert.equal((await readFlag(t, flags[1].id)).version, flags[1].version);
    assert.deepEqual((await flagActivity(flags[1].id)).map((entry) => entry.activity), ['created']);
    for (const [n, flag] of [flags[0], flags[2]].entries()) {
      assert.ok((await getSchedule(t, applied[n].id)).executed_at);
      assert.equal((await readFlag(t, flag.id)).active, false);
      const updates = (await flagActivity(flag.id)).filter((entry) => entry.activity === 'updated');
      assert.deepEqual(updates.map((entry) => (entry.detail as Json).trigger), [{ job_type: 'scheduled_change', job_id: String(applied[n].id), payload: { scheduled_change_id: applied[n].id } }]);
    }
    const { rows } = await t.db.pool.query<{ id: string }>(
      `SELECT payload->'data'->'object'->>'id' AS id FROM webhook_deliveries WHERE endpoint_id = $1 AND event_type = 'feature_flag.updated' ORDER BY id`,
      [hookId],
    );
    assert.deepEqual(rows.map((row) => Number(row.id)).sort((a, b) => a - b), [flags[0].id as number, flags[2].id as number].sort((a, b) => a - b));
    await t.db.pool.query('DELETE FROM webhook_endpoints WHERE id = $1', [hookId]);
  });

  test('a flag deleted after scheduling: "does not exist" (permanent error)', async () => {
    const flag = await newFlag(t);
    const row = await scheduleOn(flag.id, { operation: 'update_status', value: true });
    await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/${flag.id}/`, payload: { deleted: true } });
    await t.app.scheduledChanges.runOnce();
    const stored = await getSchedule(t, row.id);
    assert.equal(stored.failure_reason, 'FeatureFlag matching query does not exist. (permanent error)');
    assert.equal((await readFlag(t, flag.id)).active, true);
  });

  test('a rule of the flags writer refusing the change is a permanent failure in its words', async () => {
    const base = await newFlag(t);
    const dependent = await newFlag(t, { filters: { groups: [{ properties: [{ key: String(base.id), type: 'flag', value: 'true', operator: 'flag_evaluates_to' }], rollout_percentage: 100 }] } });
    const row = await scheduleOn(base.id, { operation: 'update_status', value: false });
    await t.app.scheduledChanges.runOnce();
    const stored = await getSchedule(t, row.id);
    assert.match(String(stored.failure_reason), /^Cannot disable this feature flag because other flags depend on it: .* \(permanent error\)$/);
    assert.equal((await readFlag(t, base.id)).active, true);
    assert.ok(dependent.id);
  });

  test('a passing failure (the database refusing the write) is retried after a wait, then applied; failure_reason stays', async () => {
    const flag = await newFlag(t);
    const row = await scheduleOn(flag.id, { operation: 'update_status', value: false });
    await t.db.pool.query(`CREATE FUNCTION refuse_flag_writes() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'simulated outage'; END $$`);
    await t.db.pool.query(`CREATE TRIGGER refuse_flag_writes BEFORE UPDATE ON feature_flags FOR EACH ROW WHEN (OLD.id = ${Number(flag.id)}) EXECUTE FUNCTION refuse_flag_writes()`);
    const now = Date.now();
    try {
      assert.equal((await t.app.scheduledChanges.runOnce(new Date(now))).find((r) => r.id === row.id)?.outcome, 'retrying');
      let stored = await getSchedule(t, row.id);
      assert.equal(stored.failure_reason, 'simulated outage (will retry automatically, 4 attempts remaining)');
      assert.equal(stored.executed_at, null);
      assert.equal((await t.app.scheduledChanges.runOnce(new Date(now + 1000))).find((r) => r.id === row.id), undefined, 'not before its backoff');
      assert.equal((await t.app.scheduledChanges.runOnce(new Date(now + 16_000))).find((r) => r.id === row.id)?.outcome, 'retrying');
      stored = await getSchedule(t, row.id);
      assert.equal(stored.failure_reason, 'simulated outage (will retry automatically, 3 attempts remaining)');
    } finally {
      await t.db.pool.query('DROP TRIGGER refuse_flag_writes ON feature_flags; DROP FUNCTION refuse_flag_writes()');
    }
    assert.equal((await t.app.scheduledChanges.runOnce(new Date(now + 60_000))).find((r) => r.id === row.id)?.outcome, 'applied');
    const stored = await getSchedule(t, row.id);
    assert.ok(stored.executed_at);
    assert.equal(stored.failure_reason, 'simulated outage (will retry automatically, 3 attempts remaining)', 'a later success does not clear it');
    assert.equal((await readFlag(t, flag.id)).active, false);
  });

  test('a finished one-time change cannot be modified', async () => {
    const flag = await newFlag(t);
    const row = await scheduleOn(flag.id, { operation: 'update_status', value: false });
    await t.app.scheduledChanges.runOnce();
    const response = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/scheduled_changes/${row.id}/`, payload: { scheduled_at: past(0) } });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().detail, 'Cannot modify a scheduled change that has already executed.');
    assert.equal(response.json().attr, null);
  });
});

describe('recurring changes', () => {
  test('a daily change runs once for missed days, then waits for the next day', async () => {
    const flag = await newFlag(t);
    const start = past(3.5 * DAY);
    const row = await schedule(t, { record_id: String(flag.id), model_name: 'FeatureFlag', payload: { operation: 'update_status', value: false }, scheduled_at: start, is_recurring: true, recurrence_interval: 'daily' });
    const now = new Date();
    const results = (await t.app.scheduledChanges.runOnce(now)).filter((r) => r.id === row.id);
    assert.deepEqual(results.map((r) => [r.outcome, r.missed]), [['applied', 3]]);
    const stored = await getSchedule(t, row.id);
    assert.equal(stored.executed_at, null);
    assert.equal(Date.parse(String(stored.scheduled_at)), Date.parse(start) + 4 * DAY);
    assert.equal(Date.parse(String(stored.last_executed_at)), now.getTime());
    assert.equal((await readFlag(t, flag.id)).version, (flag.version as number) + 1);
  });

  test('a change past its end_date is finished without running; one whose next run is past end_date finishes after running', async () => {
    const flag = await newFlag(t);
    const ended = await schedule(t, { record_id: String(flag.id), model_name: 'FeatureFlag', payload: { operation: 'update_status', value: false }, scheduled_at: past(3 * DAY), end_date: past(DAY), is_recurring: true, recurrence_interval: 'daily' });
    const last = await schedule(t, { record_id: String(flag.id), model_name: 'FeatureFlag', payload: { operation: 'update_status', value: true }, scheduled_at: past(1000), end_date: new Date(Date.now() + 3600_000).toISOString(), is_recurring: true, recurrence_interval: 'daily' });
    const results = await t.app.scheduledChanges.runOnce();
    assert.equal(results.find((r) => r.id === ended.id)?.outcome, 'ended');
    assert.equal(results.find((r) => r.id === last.id)?.outcome, 'applied');
    const endedRow = await getSchedule(t, ended.id);
    assert.ok(endedRow.executed_at);
    assert.equal(endedRow.last_executed_at, null);
    const lastRow = await getSchedule(t, last.id);
    assert.ok(lastRow.executed_at);
    assert.ok(lastRow.last_executed_at);
    assert.equal((await readFlag(t, flag.id)).version, (flag.version as number) + 1, 'only the last one ran (a save moves the version, as every PATCH does)');
  });

  test('a paused change never runs; resumed, it runs on the next round', async () => {
    const flag = await newFlag(t);
    const row = await schedule(t, { record_id: String(flag.id), model_name: 'FeatureFlag', payload: { operation: 'update_status', value: false }, scheduled_at: past(DAY / 2), is_recurring: true, cron_expression: '0 9 * * *' });
    const url = `/api/projects/${t.projectId}/scheduled_changes/${row.id}/`;
    await t.request({ method: 'PATCH', url, payload: { is_recurring: false } });
    await t.app.scheduledChanges.runOnce();
    assert.equal((await readFlag(t, flag.id)).active, true);
    assert.equal((await getSchedule(t, row.id)).scheduled_at, row.scheduled_at);
    await t.request({ method: 'PATCH', url, payload: { is_recurring: true } });
    await t.app.scheduledChanges.runOnce();
    assert.equal((await readFlag(t, flag.id)).active, false);
    const next = new Date(String((await getSchedule(t, row.id)).scheduled_at));
    assert.ok(next.getTime() > Date.now());
    assert.equal(next.getUTCHours(), 9, 'cron in the project timezone (UTC here)');
  });
});

describe('several nodes', () => {
  let second: Awaited<ReturnType<typeof buildApp>>;
  let secondPool: Pool;
  before(async () => {
    secondPool = createPool(t.db.url, 6);
    second = await buildApp({ pool: secondPool, databaseUrl: t.db.url });
    await second.ready();
  });
  after(async () => {
    await second.close();
    await secondPool.end();
  });

  test('two executors draining the same due changes apply each exactly once', async () => {
    const flags = await Promise.all(Array.from({ length: 10 }, () => newFlag(t)));
    const rows: Json[] = [];
    for (const flag of flags) {
      for (let n = 0; n < 6; n += 1) rows.push(await scheduleOn(flag.id, { operation: 'update_status', value: n % 2 === 1 }));
    }
    // One change per unit of work, so the two nodes take turns on the same rows.
    const nodeA = new ScheduledChangeExecutor({ ...t.app.kernel, flagCache: t.app.flagCache }, { batch: 1 });
    const nodeB = new ScheduledChangeExecutor({ ...second.kernel, flagCache: second.flagCache }, { batch: 1 });
    const [a, b] = await Promise.all([nodeA.runOnce(), nodeB.runOnce()]);
    const ids = [...a, ...b].map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length, 'no change was run by both');
    for (const row of rows) assert.ok(ids.includes(row.id as number));
    assert.ok(a.length > 0 && b.length > 0, `both nodes worked (${a.length} + ${b.length})`);
    for (const flag of flags) {
      const entries = (await flagActivity(flag.id)).filter((e) => (e.detail as Json).trigger !== null);
      // Six changes alternating false/true on an active flag: every one changes the flag.
      assert.equal(entries.length, 6);
      const version = (flag.version as number) + 6;
      await eventually('the flag cache has the last version', async () => (await readFlag(t, flag.id)).version === version);
    }
  });
});

describe('at start', () => {
  test('a change that fell due while the service was down is applied when it starts', async () => {
    const flag = await newFlag(t);
    const row = await scheduleOn(flag.id, { operation: 'update_status', value: false }, { scheduled_at: past(DAY) });
    const pool = createPool(t.db.url, 4);
    const node = await buildApp({ pool, databaseUrl: t.db.url, scheduledChangesIntervalMs: 60_000 });
    try {
      await node.ready();
      await eventually('applied at start', async () => (await getSchedule(t, row.id)).executed_at !== null);
      // This node's flag cache hears the other node's write through the change notices.
      await eventually('the flag is off', async () => (await readFlag(t, flag.id)).active === false);
    } finally {
      await node.close();
      await pool.end();
    }
  });
});

describe('giving way to interactive work', () => {
  test('the write signal: busy while a write runs, quiet a gap after the last one ends, never below zero', () => {
    const writes = new InteractiveWrites();
    const later = () => performance.now() + QUIET_GAP_MS + 1;
    assert.equal(writes.busy(later()), false);
    writes.started();
    writes.started();
    assert.equal(writes.busy(later()), true, 'two in flight');
    writes.finished();
    assert.equal(writes.busy(later()), true, 'one still in flight');
    writes.finished();
    writes.finished();
    assert.equal(writes.busy(later()), false);
    writes.started();
    assert.equal(writes.busy(later()), true, 'an extra finish did not hide a later write');
  });

  test('a node that never stops writing still drains every due change once, with pauses between batches', async () => {
    const flags = await Promise.all(Array.from({ length: 3 }, () => newFlag(t)));
    const rows: Json[] = [];
    for (const flag of flags) {
      for (let n = 0; n < 3; n += 1) rows.push(await scheduleOn(flag.id, { operation: 'update_status', value: n % 2 === 1 }));
    }
    const writes = new InteractiveWrites();
    writes.started(); // never finished: the node looks busy throughout
    const executor = new ScheduledChangeExecutor({ ...t.app.kernel, flagCache: t.app.flagCache }, { batch: 2, pausePercent: 100, writeWaitMs: 5, writes });
    const ran = await executor.runOnce();
    const ids = ran.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length, 'none run twice');
    for (const row of rows) assert.ok(ids.includes(row.id as number), `change ${String(row.id)} ran`);
    for (const row of rows) assert.ok((await getSchedule(t, row.id)).executed_at);
    for (const flag of flags) assert.equal((await readFlag(t, flag.id)).version, (flag.version as number) + 3);
  });

  test('management API writes are counted and released; reads and the SDK are not counted', async () => {
    const writes = t.app.scheduledChanges.writes;
    const flag = await newFlag(t);
    const before = writes.seen;
    const patched = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/${flag.id}/`, payload: { name: 'renamed' } });
    assert.equal(patched.statusCode, 200);
    const refused = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/999999999/`, payload: { name: 'x' } });
    assert.equal(refused.statusCode, 404);
    assert.equal(writes.seen, before + 2, 'both writes, answered or refused, were seen');
    await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/${flag.id}/` });
    await t.request({ method: 'POST', url: '/flags/?v=2', payload: { api_key: 'phc_none', distinct_id: 'someone' } });
    assert.equal(writes.seen, before + 2, 'a read and an SDK call are not writes');
    assert.equal(writes.busy(performance.now() + QUIET_GAP_MS + 1), false, 'nothing left in flight');
  });
});
