// deploy/nginx.conf with Debian's nginx (its own prefix and port, not the system one) in front of
// two nodes on one database: a flag changed through node A is served by node B and through nginx,
// and nginx keeps answering when node A stops.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort, ROOT, startService, until, type Service } from './support/service.ts';

const NGINX = '/usr/sbin/nginx';
const missing = !existsSync(NGINX);
if (missing) console.log(`# skipped: ${NGINX} is missing (apt-get install nginx)`);

/** deploy/nginx.conf with these nodes and this port, inside a minimal main configuration. */
function nginxConfig(dir: string, port: number, nodes: string[]): string {
  const site = readFileSync(path.join(ROOT, 'deploy/nginx.conf'), 'utf8')
    .replace(/^\s*server 10\.0\.0\.\d+:8000 .*$/gm, '')
    .replace('least_conn;', `least_conn;\n${nodes.map((node) => `    server ${node} max_fails=3 fail_timeout=10s;`).join('\n')}`)
    .replace('listen 80;', `listen 127.0.0.1:${port};`);
  assert.ok(site.includes(`server ${nodes[0]}`) && site.includes(`listen 127.0.0.1:${port}`), site);
  writeFileSync(path.join(dir, 'site.conf'), site);
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(dir, temp));
  return [
    'daemon off;',
    'master_process off;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'events { worker_connections 256; }',
    'http {',
    '  access_log off;',
    ...['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((temp) => `  ${temp === 'body' ? 'client_body' : temp}_temp_path ${dir}/${temp};`),
    `  include ${dir}/site.conf;`,
    '}',
    '',
  ].join('\n');
}

describe('nginx (deploy/nginx.conf) in front of two nodes', { skip: missing ? `${NGINX} is missing` : false, timeout: 5 * 60_000 }, () => {
  let db: TestDatabase;
  let dir: string;
  let nginx: ChildProcess;
  let nginxUrl: string;
  let a: Service;
  let b: Service;
  const key = `phx_${'ngx'.repeat(4)}${Date.now().toString(36)}`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

  before(async () => {
    db = await createTestDatabase();
    const env = { DATABASE_URL: db.url, INIT_API_KEY: key, WORKERS: '1', TRUST_PROXY: '127.0.0.1' };
    [a, b] = await Promise.all([startService(env), startService(env)]);
    dir = mkdtempSync(path.join(os.tmpdir(), 'bw-nginx-'));
    const port = await freePort();
    writeFileSync(path.join(dir, 'nginx.conf'), nginxConfig(dir, port, [new URL(a.url).host, new URL(b.url).host]));
    nginx = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')], { stdio: 'ignore' });
    nginxUrl = `http://127.0.0.1:${port}`;
    await until(async () => (await fetch(`${nginxUrl}/_health`).catch(() => null))?.status === 200, 15_000, 'nginx answering').catch((error: unknown) => {
      throw new Error(`${String(error)}\n${existsSync(path.join(dir, 'error.log')) ? readFileSync(path.join(dir, 'error.log'), 'utf8') : ''}`);
    });
  });
  after(async () => {
    nginx?.kill('SIGQUIT');
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const rolloutOn = async (base: string, flagKey: string) => {
    const response = await fetch(`${base}/api/projects/1/feature_flags/local_evaluation`, { headers });
    assert.equal(response.status, 200);
    const flag = (await response.json()).flags.find((candidate: { key: string }) => candidate.key === flagKey);
    return flag?.filters.groups[0].rollout_percentage as number | undefined;
  };

  test('a flag changed through node A is served by node B and through nginx; nginx moves on when A stops', async () => {
    const created = await fetch(`${a.url}/api/projects/1/feature_flags/`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ key: 'balanced', filters: { groups: [{ properties: [], rollout_percentage: 10 }] } }),
    });
    assert.equal(created.status, 201);
    const { id } = await created.json();
    const patched = await fetch(`${a.url}/api/projects/1/feature_flags/${id}/`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ filters: { groups: [{ properties: [], rollout_percentage: 90 }] } }),
    });
    assert.equal(patched.status, 200);
    const ms = await until(async () => (await rolloutOn(b.url, 'balanced')) === 90, 3_000, 'node B serving the change');
    console.log(`node B served the change after ${ms} ms`);
    for (let i = 0; i < 6; i++) assert.equal(await rolloutOn(nginxUrl, 'balanced'), 90, 'every answer through nginx is current');

    // Writes through nginx too (a 10 MB body limit, keep-alive upstreams).
    const viaNginx = await fetch(`${nginxUrl}/api/projects/1/feature_flags/`, { method: 'POST', headers, body: JSON.stringify({ key: 'through-nginx' }) });
    assert.equal(viaNginx.status, 201);
    await until(async () => (await rolloutOn(a.url, 'through-nginx')) !== undefined && (await rolloutOn(b.url, 'through-nginx')) !== undefined, 3_000, 'both nodes have it');

    const exit = await a.stop();
    assert.deepEqual(exit, { code: 0, signal: null }, a.output());
    for (let i = 0; i < 6; i++) assert.equal(await rolloutOn(nginxUrl, 'balanced'), 90, 'node B answers alone');
  });
});
