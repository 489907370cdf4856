// With WORKERS=2 the primary forks a background process beside the two API workers: it alone sends
// webhooks (the API workers' writes wake it through the primary), every one of its threads at the
// lowered priority BACKGROUND_NICE; killed, it is replaced, and deliveries go on from the new one.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';
import { after, describe, test } from 'node:test';
import { generateSecret, PERSONAL_KEY_PREFIX } from '../../src/accounts/auth/keys.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from '../webhooks/support.ts';
import { descendants, startService, until, type Service } from './support/service.ts';

const NICE = 7;
let db: TestDatabase | undefined;
let service: Service | undefined;
let receiver: Receiver | undefined;

after(async () => {
  if (service && service.child.exitCode === null && service.child.signalCode === null) await service.stop();
  await receiver?.close();
  await db?.drop();
});

/** The cluster's workers (the primary's own children), by the role the primary gave each (BELLWETHER_ROLE). */
function workersByRole(primary: number): { api: number[]; background: number[] } {
  const found = { api: [] as number[], background: [] as number[] };
  for (const pid of descendants(primary)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== primary) continue;
      const role = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').find((each) => each.startsWith('BELLWETHER_ROLE='))?.slice('BELLWETHER_ROLE='.length);
      if (role === 'api' || role === 'background') found[role].push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The niceness of each of a process's threads (field 19 of /proc/PID/task/TID/stat). */
function threadNiceness(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

/** Which of `pids` holds the TCP connection from local port `port` to `remotePort` (read while it is open). */
function connectionOwner(port: number, remotePort: number, pids: number[]): number | null {
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');
  let inode: string | null = null;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[1].endsWith(`:${hex(port)}`) && fields[2].endsWith(`:${hex(remotePort)}`)) inode = fields[9];
    }
  }
  if (inode === null) return null;
  for (const pid of pids) {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

describe('webhooks with WORKERS=2', { timeout: 5 * 60_000 }, () => {
  test('the background process alone delivers, at the lowered priority, and is replaced when it dies', async () => {
    db = await createTestDatabase({ migrate: false });
    receiver = await startReceiver();
    const receiverPort = Number(new URL(receiver.url).port);
    const key = generateSecret(PERSONAL_KEY_PREFIX);
    service = await startService({ DATABASE_URL: db.url, INIT_API_KEY: key, WORKERS: '2', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', BACKGROUND_NICE: String(NICE) });
    const primary = service.child.pid!;
    const api = (url: string, init: RequestInit = {}) =>
      fetch(`${service!.url}${url}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });

    const first = workersByRole(primary);
    assert.equal(first.api.length, 2, `two API workers: ${JSON.stringify(first)}`);
    assert.equal(first.background.length, 1, `one background process: ${JSON.stringify(first)}`);
    const base = os.getPriority(primary);
    const expected = Math.max(base, NICE);
    assert.ok(expected > base, `the test runs below niceness ${NICE} (${base})`);
    assert.deepEqual(new Set(threadNiceness(first.background[0])), new Set([expected]), 'every thread of the background process lowered');
    for (const pid of first.api) assert.equal(os.getPriority(pid), base, 'API workers at the primary\'s priority');

    const created = await api('/api/projects/1/webhooks/', { method: 'POST', body: JSON.stringify({ url: receiver.url, events: ['feature_flag.created'] }) });
    assert.equal(created.status, 201, await created.clone().text());
    receiver.secret = (await created.json()).secret;

    /** Creates flags (through both API workers), waits for each delivery, and answers which processes sent them. */
    const createAndDeliver = async (prefix: string, count: number, candidates: number[]): Promise<Set<number | null>> => {
      const before = receiver!.received.length;
      const statuses = await Promise.all(
        Array.from({ length: count }, async (_, i) =>
          (await api('/api/projects/1/feature_flags/', { method: 'POST', body: JSON.stringify({ key: `${prefix}-${i}`, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }) })).status,
        ),
      );
      assert.deepEqual(statuses, statuses.map(() => 201));
      const keys = () => new Set(receiver!.received.map((each) => each.json.data.object.key as string));
      await until(() => Array.from({ length: count }, (_, i) => `${prefix}-${i}`).every((flagKey) => keys().has(flagKey)), 60_000, `${prefix} delivered`);
      const arrived = receiver!.received.slice(before);
      assert.ok(arrived.every((each) => each.verified), 'every delivery verified');
      // The senders' kept-alive connections are still open: whose are they?
      return new Set(arrived.map((each) => connectionOwner(each.senderPort, receiverPort, candidates)));
    };

    const everyNode = [primary, ...first.api, ...first.background];
    assert.deepEqual(await createAndDeliver('before', 20, everyNode), new Set([first.background[0]]), 'sent by the background process only');

    process.kill(first.background[0], 'SIGKILL');
    await until(() => {
      const now = workersByRole(primary).background;
      return now.length === 1 && now[0] !== first.background[0];
    }, 60_000, 'a replacement background process');
    const second = workersByRole(primary);
    assert.deepEqual(second.api, first.api, 'the API workers kept running');
    // Lowered once it has loaded its code and got the database.
    await until(() => threadNiceness(second.background[0]).every((nice) => nice === expected), 60_000, 'the replacement lowered too');
    await until(() => /worker died: replacing it/.test(service!.output()), 5_000, 'the death logged').catch(() => assert.fail(service!.output()));
    assert.deepEqual(await createAndDeliver('after', 10, [primary, ...second.api, ...second.background]), new Set([second.background[0]]), 'sent by the new background process');

    const exit = await service.stop();
    assert.deepEqual(exit, { code: 0, signal: null }, service.output());
  });
});
