import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { FlagCache } from '../../src/flags/cache.ts';
import { CHANGES_CHANNEL, ChangeBus } from '../../src/kernel/changes/bus.ts';
import { LastCalledWriter } from '../../src/sdk/last-called.ts';
import { capture, createFlag, patchFlag, startSdkApp, type SdkTestApp } from './support.ts';
import { eventually } from '../helpers/eventually.ts';
import { ChangeCounters } from '../../src/kernel/changes/counters.ts';

let t: SdkTestApp;

before(async () => {
  t = await startSdkApp();
});
after(() => t.close());

const called = (key: string, timestamp: string, distinctId = 'user-1') => ({
  event: '$feature_flag_called',
  distinct_id: distinctId,
  timestamp,
  properties: { $feature_flag: key, $feature_flag_response: true },
});

async function lastCalled(id: unknown): Promise<string | null> {
  const response = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/${id}/` });
  assert.equal(response.statusCode, 200);
  const value = response.json().last_called_at;
  return value === null ? null : new Date(value).toISOString();
}

test('$feature_flag_called moves last_called_at forward only, for deleted flags with the key too', async () => {
  const flag = await createFlag(t, { key: 'tracked' });
  const other = await createFlag(t, { key: 'other' });
  const old = await createFlag(t, { key: 'reused' });
  await patchFlag(t, old.id, { deleted: true });
  const reused = await createFlag(t, { key: 'reused' });
  assert.equal(await lastCalled(flag.id), null);

  // The latest call of the batch wins; once written, the management API shows it (the cache took it).
  await capture(t, [
    called('tracked', '2024-05-01T10:00:00Z'),
    called('tracked', '2024-05-03T10:00:00.000Z'),
    called('tracked', '2024-05-02T10:00:00Z'),
    called('reused', '2024-05-01T12:00:00Z'),
    { event: 'pageview', distinct_id: 'user-1', properties: { $feature_flag: 'other' } },
    called('missing-flag', '2024-05-01T12:00:00.000Z'),
  ]);
  await t.app.lastCalled.flush();
  assert.equal(await lastCalled(flag.id), '2024-05-03T10:00:00.000Z');
  assert.equal(await lastCalled(other.id), null, 'only $feature_flag_called counts');
  assert.equal(await lastCalled(reused.id), '2024-05-01T12:00:00.000Z');
  assert.equal(await lastCalled(old.id), '2024-05-01T12:00:00.000Z', 'the deleted flag with that key too');

  // Never backwards.
  await capture(t, [called('tracked', '2024-04-01T00:00:00Z')]);
  await t.app.lastCalled.flush();
  assert.equal(await lastCalled(flag.id), '2024-05-03T10:00:00.000Z');
  await capture(t, [called('tracked', '2024-06-01T00:00:00.123Z')]);
  await t.app.lastCalled.flush();
  assert.equal(await lastCalled(flag.id), '2024-06-01T00:00:00.123Z');
});

test('concurrent batches: the latest timestamp wins whatever the commit order', async () => {
  const flag = await createFlag(t, { key: 'busy' });
  const times = Array.from({ length: 20 }, (_, i) => new Date(Date.UTC(2024, 6, 1, 0, 0, i)).toISOString());
  await Promise.all([...times].reverse().map((time, i) => capture(t, [called('busy', time, `u-${i}`)])));
  await t.app.lastCalled.flush();
  assert.equal(await lastCalled(flag.id), times.at(-1));
  const { rows } = await t.db.pool.query('SELECT last_called_at FROM feature_flags WHERE id = $1', [flag.id]);
  assert.equal((rows[0].last_called_at as Date).toISOString(), times.at(-1));
});

test('last_called_at sends no change notice and leaves the SDK definitions (revision, ETag) alone', async () => {
  const flag = await createFlag(t, { key: 'quiet', filters: { groups: [{ properties: [], rollout_percentage: 50 }] } });
  const definitions = () => t.app.inject({ method: 'GET', url: `/flags/definitions?token=${t.token}`, headers: { authorization: `Bearer ${t.secret}` } });
  const before = await definitions();
  assert.equal(before.statusCode, 200, before.body);
  const listener = new pg.Client({ connectionString: t.db.url });
  await listener.connect();
  const heard: string[] = [];
  listener.on('notification', (message) => heard.push(message.payload ?? ''));
  await listener.query(`LISTEN ${CHANGES_CHANNEL}`);
  try {
    await capture(t, [called('quiet', '2024-07-01T00:00:00Z')]);
    await t.app.lastCalled.flush();
    // Notices arrive in commit order: once this one is heard, any notice of the write above was too.
    const sentinel = JSON.stringify({ origin: 'test', change: { kind: 'auth' } });
    await t.db.pool.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, sentinel]);
    await eventually('the sentinel heard', async () => heard.includes(sentinel), undefined, { intervalMs: 10 });
    assert.deepEqual(heard, [sentinel], 'no change notice but the sentinel');
  } finally {
    await listener.end();
  }
  assert.equal(await lastCalled(flag.id), '2024-07-01T00:00:00.000Z');
  const after = await definitions();
  assert.equal(after.headers.etag, before.headers.etag);
  const revalidated = await t.app.inject({
    method: 'GET',
    url: `/flags/definitions?token=${t.token}`,
    headers: { authorization: `Bearer ${t.secret}`, 'if-none-match': String(before.headers.etag) },
  });
  assert.equal(revalidated.statusCode, 304);
});

test('the writer: no revision bump in the flag cache, lands on its own within a few seconds, only forward', async () => {
  const flag = await createFlag(t, { key: 'timed' });
  const cache = new FlagCache(t.db.pool, new ChangeBus(null), new ChangeCounters(t.db.pool));
  const errors: unknown[] = [];
  const writer = new LastCalledWriter(t.db.pool, cache, { error: (details) => errors.push(details) }, 200);
  writer.start();
  try {
    const project = await cache.project(t.projectId);
    const revision = project.revision;
    writer.record(t.projectId, [{ key: 'timed', at: new Date('2024-08-01T00:00:00Z') }]);
    writer.record(t.projectId, [{ key: 'timed', at: new Date('2024-07-01T00:00:00Z') }]);
    await eventually('the buffered time written', async () => project.get(flag.id)?.record.last_called_at !== null);
    assert.equal(project.get(flag.id)?.record.last_called_at?.toISOString(), '2024-08-01T00:00:00.000Z');
    assert.equal(project.revision, revision, 'the SDK views built from this project are not rebuilt');
    writer.record(t.projectId, [{ key: 'timed', at: new Date('2024-01-01T00:00:00Z') }]);
    await writer.flush();
    const { rows } = await t.db.pool.query('SELECT last_called_at FROM feature_flags WHERE id = $1', [flag.id]);
    assert.equal((rows[0].last_called_at as Date).toISOString(), '2024-08-01T00:00:00.000Z', 'never backwards');
    assert.deepEqual(errors, []);
  } finally {
    await writer.stop();
  }
});

test('another process (its own flag cache) takes the times written elsewhere on its next look', async () => {
  const flag = await createFlag(t, { key: 'elsewhere' });
  const other = new FlagCache(t.db.pool, new ChangeBus(null), new ChangeCounters(t.db.pool));
  const project = await other.project(t.projectId);
  await other.syncLastCalled();
  await capture(t, [called('elsewhere', '2024-09-09T09:09:09Z')]);
  await t.app.lastCalled.flush();
  assert.equal(project.get(flag.id)?.record.last_called_at, null);
  await other.syncLastCalled();
  assert.equal(project.get(flag.id)?.record.last_called_at?.toISOString(), '2024-09-09T09:09:09.000Z');
  const listed = project.all().find((rendered) => rendered.record.id === flag.id);
  assert.equal(listed?.record.last_called_at?.toISOString(), '2024-09-09T09:09:09.000Z');
});

test('nothing is written on the ingestion transaction; what is buffered is written on close', async () => {
  const flag = await createFlag(t, { key: 'closing' });
  await capture(t, [called('closing', '2024-10-10T10:10:10Z')]);
  const { rows: before } = await t.db.pool.query('SELECT last_called_at FROM feature_flags WHERE id = $1', [flag.id]);
  assert.equal(before[0].last_called_at, null, 'not on the ingestion transaction');
  await t.app.lastCalled.stop();
  const { rows } = await t.db.pool.query('SELECT last_called_at FROM feature_flags WHERE id = $1', [flag.id]);
  assert.equal((rows[0].last_called_at as Date).toISOString(), '2024-10-10T10:10:10.000Z');
});
