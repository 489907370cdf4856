import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { capture, createFlag, patchFlag, startSdkApp, type SdkTestApp } from './support.ts';

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

  // The latest call of the batch wins; the management API shows it at once (the cache was refreshed).
  await capture(t, [
    called('tracked', '2024-05-01T10:00:00Z'),
    called('tracked', '2024-05-03T10:00:00.000Z'),
    called('tracked', '2024-05-02T10:00:00Z'),
    called('reused', '2024-05-01T12:00:00Z'),
    { event: 'pageview', distinct_id: 'user-1', properties: { $feature_flag: 'other' } },
    called('missing-flag', '2024-05-01T12:00:00.000Z'),
  ]);
  assert.equal(await lastCalled(flag.id), '2024-05-03T10:00:00.000Z');
  assert.equal(await lastCalled(other.id), null, 'only $feature_flag_called counts');
  assert.equal(await lastCalled(reused.id), '2024-05-01T12:00:00.000Z');
  assert.equal(await lastCalled(old.id), '2024-05-01T12:00:00.000Z', 'the deleted flag with that key too');

  // Never backwards.
  await capture(t, [called('tracked', '2024-04-01T00:00:00Z')]);
  assert.equal(await lastCalled(flag.id), '2024-05-03T10:00:00.000Z');
  await capture(t, [called('tracked', '2024-06-01T00:00:00.123Z')]);
  assert.equal(await lastCalled(flag.id), '2024-06-01T00:00:00.123Z');
});

test('concurrent batches: the latest timestamp wins whatever the commit order', async () => {
  const flag = await createFlag(t, { key: 'busy' });
  const times = Array.from({ length: 20 }, (_, i) => new Date(Date.UTC(2024, 6, 1, 0, 0, i)).toISOString());
  await Promise.all([...times].reverse().map((time, i) => capture(t, [called('busy', time, `u-${i}`)])));
  assert.equal(await lastCalled(flag.id), times.at(-1));
  const { rows } = await t.db.pool.query('SELECT last_called_at FROM feature_flags WHERE id = $1', [flag.id]);
  assert.equal((rows[0].last_called_at as Date).toISOString(), times.at(-1));
});
