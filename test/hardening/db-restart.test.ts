// A PostgreSQL restart under load, on an embedded PostgreSQL of the test's own (the machine's is
// shared and never restarted): the process lives, answers only 200s and 503s meanwhile, stores
// everything it acknowledged, and serves again once the server is back.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { askReady, assertStored, emptyLoad, runLoad, sendBatch, sleep, startFaultApp, summary, until, type FaultApp } from './db-support.ts';

let dataDir: string;
let port: number;
let server: EmbeddedDatabase | null = null;
let app: FaultApp | null = null;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address() as net.AddressInfo;
      probe.close(() => resolve(address.port));
    });
  });
}

const quiet = () => {};

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'bw-restart-'));
  port = await freePort();
  const began = Date.now();
  server = await startEmbeddedPostgres(dataDir, quiet, { port });
  const started = Date.now();
  app = await startFaultApp({ url: server.url });
  process.stdout.write(`# before: cluster created and started in ${started - began} ms, migrated and app built in ${Date.now() - started} ms\n`);
  const created = await app.app.inject({
    method: 'POST',
    url: `/api/projects/${app.projectId}/feature_flags/`,
    headers: { authorization: `Bearer ${app.key}` },
    payload: { key: 'beta', filters: { groups: [{ properties: [], rollout_percentage: 50 }] } },
  });
  assert.equal(created.statusCode, 201, created.body);
});

after(async () => {
  await app?.close();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('PostgreSQL restarted under /batch/ and /flags load: only 200s and 503s, nothing lost that was acknowledged, served again soon after', async (t) => {
  const t0 = app!;
  const began = Date.now();
  const marks: string[] = [];
  const mark = (what: string) => marks.push(`${what} ${Date.now() - began}`);
  const result = emptyLoad();
  let stop = false;
  const load = runLoad(t0, result, 6, () => stop);
  await sleep(500);
  const before = { ...result.statuses['/batch/'] };

  mark('stopping');
  const stoppedAt = Date.now();
  await server!.stop();
  server = null;
  const stopMs = Date.now() - stoppedAt;
  await sleep(500);
  const down = emptyLoad();
  const whileDown = await sendBatch(t0, down);
  const readyDown = await askReady(t0, down);
  mark('starting');
  const startingAt = Date.now();
  server = await startEmbeddedPostgres(dataDir, quiet, { port });
  const upAt = Date.now();
  const startMs = upAt - startingAt;
  const recoveredMs = await until(async () => (await sendBatch(t0, result)).statusCode === 200, 5_000, 'a /batch/ after the restart');
  await until(() => t0.app.changeBus.listening, 5_000, 'the change listener reconnects');
  const listenerMs = Date.now() - upAt;
  await sleep(300);
  stop = true;
  mark('load stopping');
  await load;
  mark('load stopped');

  t.diagnostic(
    `stop took ${stopMs} ms, start ${startMs} ms (down ${upAt - stoppedAt} ms); while down: /batch/ ${whileDown.statusCode}, /_readyz ${readyDown.statusCode}; ` +
      `first /batch/ 200 ${recoveredMs} ms after the server was back, listener back after ${listenerMs} ms; ` +
      `/batch/ before the stop ${JSON.stringify(before)}; whole run ${summary(result)}; pool connection errors seen ${t0.connectionErrors.length}`,
  );
  assert.equal(whileDown.statusCode, 503, whileDown.body);
  assert.equal(whileDown.headers['retry-after'], '5');
  assert.equal(readyDown.statusCode, 503);
  assert.deepEqual(result.unexpected, []);
  assert.deepEqual(down.unexpected, []);
  assert.ok((result.statuses['/batch/']?.[503] ?? 0) > 0, 'the load met the restart');
  assert.ok(t0.app.changeBus.stats.reconnected >= 1);
  await assertStored(server.url, result.acknowledged);
  mark('checked');
  assert.equal((await askReady(t0, emptyLoad())).statusCode, 200);
  mark('ready');
  t.diagnostic(marks.join(', '));
});
