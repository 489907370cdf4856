// `npm start` (the compiled dist/server.mjs) with WORKERS=2 on the embedded PostgreSQL: one primary (database, migrations, the
// printed key) and two workers sharing the port (and the background process that delivers webhooks); a worker that dies is replaced; SIGTERM to the
// process `npm start` created stops the workers, then PostgreSQL, and leaves nothing running.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { descendants, isAlive, startService, until, withTimeout, type Service } from './support/service.ts';

const STOP_TIMEOUT_MS = 20_000;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bw-cluster-'));
let service: Service | undefined;
let everyPid = new Set<number>();

after(() => {
  for (const pid of everyPid) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  if (service?.child.pid && isAlive(service.child.pid)) service.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

function postgresPid(): number {
  return Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** The role the primary gave a worker (BELLWETHER_ROLE): `api` or `background`. */
function role(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').find((each) => each.startsWith('BELLWETHER_ROLE='))?.slice('BELLWETHER_ROLE='.length);
  } catch {
    return undefined;
  }
}

/**
 * The node processes below npm: the primary (the one whose children include postgres), its API
 * workers and its background process (webhook delivery).
 */
function serviceProcesses(npmPid: number): { primary: number; workers: number[]; background: number[] } {
  const nodes = descendants(npmPid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('dist/server.mjs');
    } catch {
      return false;
    }
  });
  const primary = nodes.find((pid) => descendants(pid).includes(postgresPid()))!;
  const children = nodes.filter((pid) => pid !== primary);
  return { primary, workers: children.filter((pid) => role(pid) === 'api'), background: children.filter((pid) => role(pid) === 'background') };
}

describe('npm start with WORKERS=2', { timeout: 5 * 60_000 }, () => {
  test('two workers serve; a dead worker is replaced; SIGTERM to npm start leaves nothing running', async () => {
    service = await startService({ DATA_DIR: dataDir, WORKERS: '2' }, ['npm', 'start', '--silent']);
    const npmPid = service.child.pid!;
    const key = /^\s+(phx_[\w-]+)\s*$/m.exec(service.output())?.[1];
    assert.ok(key, `the primary prints the key once\n${service.output()}`);
    assert.equal(service.output().match(/Bellwether is running at/g)?.length, 1, 'one start line, from the primary');
    const list = () => fetch(`${service!.url}/api/projects/1/feature_flags/`, { headers: { authorization: `Bearer ${key}` } });

    const { primary, workers, background } = serviceProcesses(npmPid);
    assert.ok(primary, 'the primary runs the embedded PostgreSQL');
    assert.equal(workers.length, 2, `two workers below the primary: ${workers}`);
    assert.equal(background.length, 1, `and one background process: ${background}`);
    const statuses = await Promise.all(Array.from({ length: 20 }, async () => (await list()).status));
    assert.deepEqual(statuses, statuses.map(() => 200));

    // A worker killed outright is logged and replaced; the other keeps serving meanwhile (a
    // keep-alive connection to the dead one is reset, so a client retries on a new one).
    process.kill(workers[0], 'SIGKILL');
    await until(async () => (await list().catch(() => null))?.status === 200, 10_000, 'served by the other worker');
    await until(() => {
      const now = serviceProcesses(npmPid).workers;
      return now.length === 2 && !now.includes(workers[0]);
    }, 60_000, 'a replacement worker');
    await until(() => /worker died: replacing it/.test(service!.output()), 5_000, 'the death logged').catch(() => assert.fail(service!.output()));
    await until(async () => {
      const statuses = await Promise.all(Array.from({ length: 10 }, async () => (await list().catch(() => null))?.status));
      return statuses.every((status) => status === 200);
    }, 60_000, 'served by both workers again');

    const postgres = postgresPid();
    everyPid = new Set([npmPid, ...descendants(npmPid)]);
    assert.ok(everyPid.has(postgres), 'the embedded PostgreSQL runs below npm start');
    service.child.kill('SIGTERM');
    const exit = await withTimeout(service.exited, STOP_TIMEOUT_MS, () => `exit after SIGTERM\n${service!.output()}`);
    assert.deepEqual(exit, { code: 0, signal: null }, service.output());
    await until(() => [...everyPid].every((pid) => !isAlive(pid)), 5_000, 'every process gone').catch(() => {
      assert.fail(`still running: ${[...everyPid].filter(isAlive)}\n${service!.output()}`);
    });
    assert.equal(isAlive(postgres), false, 'postgres stopped');
    assert.equal(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid')), false, 'postmaster.pid removed');
  });
});
