// METRICS_PORT with two workers: the primary serves /metrics on its own port, summed over the
// workers: requests by route pattern and status with latency, pool connections, cache hits and
// misses, change-notice lag (a flag created through one worker is heard by the other), ingestion
// events, and the process metrics (event-loop lag).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort, startService, until, type Service } from './support/service.ts';

describe('/metrics on METRICS_PORT, two workers', { timeout: 5 * 60_000 }, () => {
  let db: TestDatabase;
  let service: Service;
  let metricsUrl: string;
  const key = `phx_${'met'.repeat(4)}${Date.now().toString(36)}`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

  before(async () => {
    db = await createTestDatabase({ migrate: false });
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    service = await startService({ DATABASE_URL: db.url, INIT_API_KEY: key, WORKERS: '2', METRICS_PORT: String(port) });
  });
  after(async () => {
    const exit = await service?.stop();
    if (exit) assert.deepEqual(exit, { code: 0, signal: null }, service.output());
    await db?.drop();
  });

  const scrape = async () => {
    const response = await fetch(metricsUrl);
    assert.equal(response.status, 200);
    assert.match(String(response.headers.get('content-type')), /^text\/plain/);
    return response.text();
  };
  /** The value of the first sample of `name` whose labels include all of `labels`. */
  const sample = (text: string, name: string, labels: Record<string, string> = {}) => {
    for (const line of text.split('\n')) {
      if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
      if (Object.entries(labels).every(([label, value]) => line.includes(`${label}="${value}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
    }
    return undefined;
  };

  test('every family, summed over the workers; the public port does not serve it', async () => {
    // Enough requests that both workers answer some (the primary hands connections out in turn).
    for (let i = 0; i < 6; i++) {
      const created = await fetch(`${service.url}/api/projects/1/feature_flags/`, { method: 'POST', headers, body: JSON.stringify({ key: `m-${i}` }) });
      assert.equal(created.status, 201);
      assert.equal((await fetch(`${service.url}/api/projects/1/feature_flags/`, { headers })).status, 200);
      assert.equal((await fetch(`${service.url}/api/projects/1/feature_flags/999999/`, { headers })).status, 404);
    }
    const { rows } = await db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = 1');
    const batch = { api_key: rows[0].api_token, batch: [1, 2, 3].map((i) => ({ uuid: randomUUID(), event: 'seen', distinct_id: `u${i}` })) };
    assert.equal((await fetch(`${service.url}/batch/`, { method: 'POST', headers, body: JSON.stringify(batch) })).status, 200);
    assert.equal((await fetch(`${service.url}/batch/`, { method: 'POST', headers, body: JSON.stringify(batch) })).status, 200);

    let text = '';
    await until(async () => {
      text = await scrape();
      return (sample(text, 'bellwether_change_notice_lag_seconds_count', { kind: 'flag' }) ?? 0) > 0;
    }, 10_000, 'a change notice heard by the other worker').catch(() => assert.fail(text));

    const listRoute = { method: 'GET', route: '/api/projects/:project_id/feature_flags', status: '200' };
    const requestLines = text.split('\n').filter((line) => line.startsWith('bellwether_http_requests_total')).join('\n');
    assert.equal(sample(text, 'bellwether_http_requests_total', listRoute), 6, `counted by route pattern over both workers:\n${requestLines}`);
    assert.equal(sample(text, 'bellwether_http_request_duration_seconds_count', listRoute), 6);
    assert.ok(sample(text, 'bellwether_http_request_duration_seconds_bucket', { ...listRoute, le: '+Inf' }) === 6);
    assert.equal(sample(text, 'bellwether_http_requests_total', { route: '/api/projects/:project_id/feature_flags/:id', status: '404' }), 6);
    assert.doesNotMatch(text, /feature_flags\/999999/, 'no raw URLs in labels');
    assert.ok((sample(text, 'bellwether_db_pool_connections', { state: 'total' }) ?? 0) >= 2, 'pools of both workers');
    assert.notEqual(sample(text, 'bellwether_db_pool_connections', { state: 'idle' }), undefined);
    assert.equal(sample(text, 'bellwether_db_pool_connections', { state: 'waiting' }), 0);
    assert.ok((sample(text, 'bellwether_cache_requests_total', { cache: 'flags', result: 'hit' }) ?? 0) > 0);
    assert.ok((sample(text, 'bellwether_cache_requests_total', { cache: 'auth_keys', result: 'miss' }) ?? 0) > 0);
    assert.equal(sample(text, 'bellwether_ingestion_events_total', { result: 'stored' }), 3);
    assert.equal(sample(text, 'bellwether_ingestion_events_total', { result: 'duplicate' }), 3);
    assert.notEqual(sample(text, 'nodejs_eventloop_lag_seconds'), undefined, 'event-loop lag (default metrics)');
    assert.notEqual(sample(text, 'process_cpu_seconds_total'), undefined);

    assert.doesNotMatch(await (await fetch(`${service.url}/metrics`)).text(), /bellwether_http_requests_total/, 'not on the public port');
    assert.equal((await fetch(metricsUrl.replace('/metrics', '/other'))).status, 404);
  });
});
