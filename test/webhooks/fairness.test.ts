/**
 * The delivery worker's claims (two lanes per endpoint, an endpoint's rows held by one process) and
 * its connections (kept alive; a request on a connection the receiver had just closed sent again).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { postOnce } from '../../src/webhooks/delivery/send.ts';
import { claimDue, releaseClaimed, type ClaimLimits } from '../../src/webhooks/delivery/store.ts';
import { poolWrite } from '../../src/db/unit-of-work.ts';
import type { TestApp } from '../helpers/app.ts';
import { inUnit } from '../helpers/database.ts';
import { createFlag, createWebhook, startReceiver, startWebhookApp, webhooksUrl, type Receiver } from './support.ts';

let t: TestApp;
let receiver: Receiver;

before(async () => {
  t = await startWebhookApp();
  receiver = await startReceiver();
  // The tests claim by hand: the app's own worker stays out of the way.
  await t.app.webhookWorker.stop();
});
after(async () => {
  await t.close();
  await receiver.close();
});

const limits = (known: ClaimLimits['known'] = new Map()): ClaimLimits => ({ limit: 100, batch: 4, concurrency: 4, attemptMs: 10_000, known });

async function endpointWithRows(prefix: string, count: number): Promise<{ id: string; rows: { id: string; message_id: string }[] }> {
  const hook = await createWebhook(t, { url: receiver.url, events: ['feature_flag.created'] });
  for (let i = 0; i < count; i++) await createFlag(t, `${prefix}-${i}`);
  const { rows } = await t.db.pool.query<{ id: string; message_id: string }>(
    `SELECT d.id::text AS id, d.message_id FROM webhook_deliveries d WHERE d.endpoint_id = $1 ORDER BY d.id`,
    [hook.id],
  );
  assert.equal(rows.length, count);
  return { id: hook.id, rows };
}

async function removeEndpoint(id: string): Promise<void> {
  const response = await t.request({ method: 'DELETE', url: `${webhooksUrl(t.projectId)}${id}/` });
  assert.equal(response.statusCode, 204, response.body);
}

test('a due retry is not held behind its endpoint\'s backlog of first attempts; first attempts keep their order', async () => {
  const endpoint = await endpointWithRows('lanes', 10);
  // The newest row failed once and is due again now: later than every first attempt fell due.
  const retry = endpoint.rows.at(-1)!;
  await t.db.pool.query(`UPDATE webhook_deliveries SET attempts = 1, next_attempt_at = now() WHERE id = $1`, [retry.id]);

  const claimed = await inUnit(t.db.pool, (tx) => claimDue(tx, limits()));
  assert.deepEqual(
    claimed.map((row) => String(row.id)),
    [retry.id, ...endpoint.rows.slice(0, 3).map((row) => row.id)],
    'the retry first (its lane\'s turn), then the three oldest first attempts',
  );
  assert.deepEqual(claimed.map((row) => row.attempts), [2, 1, 1, 1]);
  await removeEndpoint(endpoint.id);
});

test('an endpoint\'s rows belong to the process holding some: others claim none; the holder claims more, leased for their wave', async () => {
  const endpoint = await endpointWithRows('held', 10);
  const first = await inUnit(t.db.pool, (tx) => claimDue(tx, limits()));
  assert.equal(first.length, 4, 'one wave of the endpoint concurrency for an endpoint this process has no figure for');

  const other = await inUnit(t.db.pool, (tx) => claimDue(tx, limits()));
  assert.equal(other.length, 0, 'another process takes nothing while the rows are leased');

  const more = await inUnit(t.db.pool, (tx) => claimDue(tx, limits(new Map([[endpoint.id, { held: 4, batch: 8 }]]))));
  assert.deepEqual(
    more.map((row) => String(row.id)),
    endpoint.rows.slice(4, 8).map((row) => row.id),
    'the holder gets the next four, in order, up to its claim size',
  );
  // A row of the second wave may wait for a first-wave attempt: two attempts' time plus 5 s.
  const leaseSeconds = (row: { in_flight_until: Date | null; last_attempt_at: Date | null }) =>
    (row.in_flight_until!.getTime() - row.last_attempt_at!.getTime()) / 1000;
  assert.deepEqual(first.map(leaseSeconds), [15, 15, 15, 15]);
  assert.deepEqual(more.map(leaseSeconds), [25, 25, 25, 25]);

  // Closing hands back what was not started: due at once for anyone, in its place in line, the attempt not counted.
  await inUnit(t.db.pool, (tx) => releaseClaimed(tx, [...first, ...more].map((row) => row.id)));
  const again = await inUnit(t.db.pool, (tx) => claimDue(tx, limits()));
  assert.deepEqual(
    again.map((row) => String(row.id)),
    endpoint.rows.slice(0, 4).map((row) => row.id),
  );
  assert.deepEqual(again.map((row) => row.attempts), [1, 1, 1, 1]);
  await removeEndpoint(endpoint.id);
});

test('claims go round the endpoints: the total limit takes the first rows of each before the second of any', async () => {
  const a = await endpointWithRows('round-a', 3);
  const b = await endpointWithRows('round-b', 0);
  // Both endpoints take flag creations: the rows after b exists go to both.
  for (let i = 0; i < 3; i++) await createFlag(t, `round-both-${i}`);
  const claimed = await inUnit(t.db.pool, (tx) => claimDue(tx, { ...limits(), limit: 4 }));
  const perEndpoint = (id: string) => claimed.filter((row) => row.endpoint_id === id).length;
  assert.equal(perEndpoint(a.id), 2);
  assert.equal(perEndpoint(b.id), 2);
  await removeEndpoint(a.id);
  await removeEndpoint(b.id);
});

test('a claim does not take rows another process leased after its snapshot: they are sent once', async () => {
  const endpoint = await endpointWithRows('race', 2);
  const other = await t.db.pool.connect();
  let claimed: Awaited<ReturnType<typeof claimDue>>;
  try {
    // Another process's claim of the rows, not yet committed when this claim starts.
    await other.query('BEGIN');
    await other.query(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = now() + interval '1 minute', in_flight_until = now() + interval '1 minute'
        WHERE endpoint_id = $1`,
      [endpoint.id],
    );
    const claiming = claimDue(poolWrite(t.db.pool), limits());
    // This claim saw the rows due (its snapshot) and waits for their locks; then the other commits.
    for (let waited = 0; ; waited += 10) {
      const { rows } = await t.db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'WITH locked AS%'`,
      );
      if (rows[0].n > 0) break;
      assert.ok(waited < 5000, 'the claim waits for the rows the other holds');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await other.query('COMMIT');
    claimed = await claiming;
  } finally {
    other.release();
  }
  assert.deepEqual(claimed.map((row) => row.id), [], 'nothing claimed twice');
  const { rows } = await t.db.pool.query<{ attempts: number }>('SELECT attempts FROM webhook_deliveries WHERE endpoint_id = $1', [endpoint.id]);
  assert.deepEqual(rows.map((row) => row.attempts), [1, 1]);
  await removeEndpoint(endpoint.id);
});

interface CountingServer {
  url: URL;
  connections: number;
  requests: number;
  close(): Promise<void>;
}

/** A receiver counting connections; `drop` says which requests it hangs up on (by their number on their connection). */
async function countingServer(drop: (onConnection: number) => boolean): Promise<CountingServer> {
  const perSocket = new Map<Socket, number>();
  const counting: CountingServer = { url: new URL('http://127.0.0.1/'), connections: 0, requests: 0, close: async () => {} };
  const server = http.createServer((request, response) => {
    counting.requests++;
    const n = (perSocket.get(request.socket) ?? 0) + 1;
    perSocket.set(request.socket, n);
    request.resume();
    request.on('end', () => {
      if (drop(n)) request.socket.destroy();
      else response.writeHead(200).end('ok');
    });
  });
  server.on('connection', () => counting.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  counting.url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
  counting.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return counting;
}

test('attempts to one endpoint reuse a kept-alive connection', async () => {
  const server = await countingServer(() => false);
  const destination = { url: server.url, address: '127.0.0.1', family: 4 as const };
  for (let i = 0; i < 3; i++) {
    const result = await postOnce(destination, {}, '{}', 2000);
    assert.equal(result.status, 200);
    assert.equal(result.error, null);
  }
  assert.equal(server.requests, 3);
  assert.equal(server.connections, 1);
  await server.close();
});

test('a request on a kept connection the receiver hung up on is sent once more on a new one; a hang-up on a new connection is a failure', async () => {
  // The second request on any connection is dropped, as when a receiver closes an idle connection as it is reused.
  const stale = await countingServer((n) => n === 2);
  const destination = { url: stale.url, address: '127.0.0.1', family: 4 as const };
  assert.equal((await postOnce(destination, {}, '{}', 2000)).status, 200);
  const resent = await postOnce(destination, {}, '{}', 2000);
  assert.equal(resent.status, 200, resent.error ?? '');
  assert.equal(stale.requests, 3);
  assert.equal(stale.connections, 2);
  await stale.close();

  const broken = await countingServer(() => true);
  const failed = await postOnce({ url: broken.url, address: '127.0.0.1', family: 4 }, {}, '{}', 2000);
  assert.equal(failed.status, null);
  assert.ok(failed.error);
  assert.equal(broken.requests, 1, 'not sent again: nothing says the connection was stale');
  await broken.close();
});
