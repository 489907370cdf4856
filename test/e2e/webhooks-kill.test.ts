// The outbox survives `kill -9`: the service is killed outright in the middle of a burst of flag
// changes with deliveries in flight; once started again, every committed change reaches the
// receiver (at least once; duplicates counted), and nothing arrives for a change that was not committed.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { generateSecret, PERSONAL_KEY_PREFIX } from '../../src/accounts/auth/keys.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from '../webhooks/support.ts';
import { startService, until, type Service } from './support/service.ts';

const FLAGS = 300;
let db: TestDatabase | undefined;
let service: Service | undefined;
let receiver: Receiver | undefined;

after(async () => {
  if (service && service.child.exitCode === null && service.child.signalCode === null) await service.stop();
  await receiver?.close();
  await db?.drop();
});

describe('webhooks and kill -9', { timeout: 5 * 60_000 }, () => {
  test('a kill -9 mid-burst loses no event and invents none', async () => {
    db = await createTestDatabase({ migrate: false });
    receiver = await startReceiver();
    receiver.answer = { status: 200, delayMs: 150, body: 'ok' };
    const key = generateSecret(PERSONAL_KEY_PREFIX);
    const env = { DATABASE_URL: db.url, INIT_API_KEY: key, WORKERS: '1', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_TIMEOUT_MS: '1000' };
    service = await startService(env);
    const api = (url: string, init: RequestInit = {}) =>
      fetch(`${service!.url}${url}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });

    const created = await api('/api/projects/1/webhooks/', { method: 'POST', body: JSON.stringify({ url: receiver.url, events: ['feature_flag.created'] }) });
    assert.equal(created.status, 201, await created.clone().text());
    receiver.secret = (await created.json()).secret;

    // The burst: 8 writers at a time; the process is killed once a third of the flags are written.
    let next = 0;
    let answered = 0;
    const killed = new Promise<void>((resolve) => {
      const writer = async () => {
        while (next < FLAGS) {
          const i = next++;
          const response = await api('/api/projects/1/feature_flags/', {
            method: 'POST',
            body: JSON.stringify({ key: `burst-${i}`, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }),
          }).catch(() => null);
          if (response?.status === 201) answered++;
          if (answered === Math.floor(FLAGS / 3) && service!.child.signalCode === null) {
            service!.child.kill('SIGKILL');
            resolve();
          }
          if (!response) return;
        }
      };
      void Promise.all(Array.from({ length: 8 }, writer)).then(() => resolve());
    });
    await killed;
    const exit = await service.exited;
    assert.equal(exit.signal, 'SIGKILL');
    const deliveredBeforeKill = receiver.received.length;
    assert.ok(deliveredBeforeKill < answered, `deliveries still pending at the kill (${deliveredBeforeKill} of ${answered})`);

    service = await startService(env);
    for (let i = next; i < FLAGS; i++) {
      const response = await api('/api/projects/1/feature_flags/', {
        method: 'POST',
        body: JSON.stringify({ key: `burst-${i}`, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }),
      });
      assert.equal(response.status, 201);
    }

    const { rows } = await db.pool.query<{ key: string }>(`SELECT key FROM feature_flags WHERE key LIKE 'burst-%'`);
    const committed = new Set(rows.map((row) => row.key));
    assert.ok(committed.size >= FLAGS - 8, `${committed.size} flags committed`);
    const receivedKeys = () => new Set(receiver!.received.map((each) => each.json.data.object.key as string));
    await until(() => [...committed].every((flagKey) => receivedKeys().has(flagKey)), 120_000, 'every committed flag delivered');

    // Attempts in flight at the kill were received but never recorded: their lease runs out and
    // they are sent again (the duplicates at-least-once allows), then every row is delivered.
    const undelivered = async () => (await db!.pool.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'delivered'`)).rows[0].n;
    await until(async () => (await undelivered()) === 0, 60_000, 'every outbox row delivered');
    const ids = receiver.received.map((each) => String(each.headers['webhook-id']));
    const duplicates = ids.length - new Set(ids).size;
    assert.ok(receiver.received.every((each) => each.verified));
    assert.equal(new Set(ids).size, committed.size, 'one message per committed change');
    assert.deepEqual([...receivedKeys()].filter((flagKey) => !committed.has(flagKey)), [], 'no event without its change');
    process.stdout.write(`# kill -9 after ${answered} answered creates, ${deliveredBeforeKill} delivered before; ${committed.size} committed, ${ids.length} received, ${duplicates} duplicates\n`);
  });
});
