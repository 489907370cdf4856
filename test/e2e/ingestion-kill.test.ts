// Ingestion survives `kill -9`: the service is killed outright while batches are being stored;
// every event of a batch it answered 200 is stored, a batch it did not answer is stored whole or
// not at all, and sending the unanswered batches again (as an SDK retries) stores each event once.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startService, type Service } from './support/service.ts';

const SENDERS = 6;
const BATCH = 50;
const KILL_AFTER = 30; // answered batches
const PEOPLE = 40; // distinct ids shared by every sender, some events changing their persons

let db: TestDatabase | undefined;
let service: Service | undefined;

after(async () => {
  if (service && service.child.exitCode === null && service.child.signalCode === null) await service.stop();
  await db?.drop();
});

interface Sent {
  uuids: string[];
  body: string;
}

function makeBatch(token: string, seq: number): Sent {
  const uuids: string[] = [];
  const batch = Array.from({ length: BATCH }, (_, i) => {
    const uuid = randomUUID();
    uuids.push(uuid);
    const distinctId = `kill-person-${(seq * BATCH + i) % PEOPLE}`;
    const properties = i % 5 === 0 ? { $set: { plan: `plan-${seq}` } } : { page: `/p/${i}` };
    return { event: i % 5 === 0 ? 'upgraded' : 'viewed', distinct_id: distinctId, uuid, timestamp: new Date().toISOString(), properties };
  });
  return { uuids, body: JSON.stringify({ api_key: token, batch }) };
}

describe('ingestion and kill -9', { timeout: 5 * 60_000 }, () => {
  test('every answered event is stored, unanswered batches whole or not at all, and a resend stores each event once', async () => {
    db = await createTestDatabase({ migrate: false });
    const env = { DATABASE_URL: db.url, WORKERS: '1' };
    service = await startService(env);
    const { rows: projects } = await db.pool.query<{ api_token: string }>('SELECT api_token FROM projects ORDER BY id LIMIT 1');
    const token = projects[0].api_token;
    const post = (url: string, body: string) => fetch(`${url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

    const answered: Sent[] = [];
    const unanswered: Sent[] = [];
    let seq = 0;
    const url = service.url;
    const sender = async () => {
      for (;;) {
        const sent = makeBatch(token, seq++);
        const response = await post(url, sent.body).catch(() => null);
        if (response?.status === 200) answered.push(sent);
        else {
          unanswered.push(sent);
          return;
        }
        if (answered.length === KILL_AFTER && service!.child.signalCode === null) service!.child.kill('SIGKILL');
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, sender));
    const exit = await service.exited;
    assert.equal(exit.signal, 'SIGKILL');

    const storedOf = async (uuids: string[]) =>
      (await db!.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE uuid = ANY($1::uuid[])', [uuids])).rows[0].n;
    const answeredUuids = answered.flatMap((sent) => sent.uuids);
    assert.equal(await storedOf(answeredUuids), answeredUuids.length, 'every event of an answered batch is stored');
    for (const sent of unanswered) assert.ok([0, BATCH].includes(await storedOf(sent.uuids)), 'an unanswered batch is stored whole or not at all');

    // Started again, the senders retry what got no answer: each event ends up stored once.
    service = await startService(env);
    for (const sent of unanswered) assert.equal((await post(service.url, sent.body)).status, 200);
    const everyUuid = [...answeredUuids, ...unanswered.flatMap((sent) => sent.uuids)];
    assert.equal(await storedOf(everyUuid), everyUuid.length, 'each event stored once after the resend');
    const { rows: people } = await db.pool.query<{ n: number }>(
      `SELECT count(DISTINCT p.id)::int AS n FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id WHERE d.distinct_id LIKE 'kill-person-%'`,
    );
    assert.equal(people[0].n, PEOPLE, 'one person per distinct id');
    process.stdout.write(`# kill -9 after ${answered.length} answered batches; ${unanswered.length} unanswered, resent; ${everyUuid.length} events stored once\n`);
  });
});
