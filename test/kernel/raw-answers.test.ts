/**
 * Raw answers (src/kernel/http/raw-answers.ts): an ordinary request to a registered path is
 * answered before Fastify with the headers, metrics and access log lines Fastify's path gives;
 * anything else reaches Fastify untouched.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import client from 'prom-client';
import type { FastifyInstance } from 'fastify';
import { createLogger } from '../../src/kernel/logging.ts';
import { createServer, kernel } from '../../src/kernel/plugin.ts';
import type { RawAnswer, RawRequest } from '../../src/kernel/http/raw-answers.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { rawHttp } from '../helpers/raw-http.ts';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

async function send(url: string, method = 'GET', headers: Record<string, string> = {}): Promise<Answer> {
  const answer = await rawHttp(url, { method, headers });
  return { ...answer, body: answer.body.toString('utf8') };
}

const JSON_TYPE = 'application/json; charset=utf-8';
const BODY = '{"answer":"stored"}';

let db: TestDatabase;
let app: FastifyInstance;
let url: string;
const lines: Record<string, unknown>[] = [];
const seenRaw: RawRequest[] = [];
let mode: 'answer' | 'decline' | 'fail' | 'not-modified' = 'answer';

before(async () => {
  db = await createTestDatabase({ migrate: false });
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  app = createServer({ logger: createLogger('info', destination) });
  await app.register(kernel, { pool: db.pool, databaseUrl: null });
  app.rawAnswers.get('/hot/path', async (request): Promise<RawAnswer | null> => {
    seenRaw.push(request);
    if (mode === 'decline') return null;
    if (mode === 'fail') throw new Error('broken');
    if (mode === 'not-modified') return { status: 304, headers: { etag: 'W/"1"', 'cache-control': 'private, must-revalidate' }, payload: null };
    return { status: 200, headers: { 'content-type': JSON_TYPE, etag: 'W/"1"', 'cache-control': 'private, must-revalidate' }, payload: BODY };
  });
  // Fastify's route for the same path: what it answers says who answered.
  app.get('/hot/path', { config: { public: true } }, async (_request, reply) => {
    reply.header('etag', 'W/"1"').header('cache-control', 'private, must-revalidate');
    if (mode === 'not-modified') return reply.code(304).send();
    return reply.header('content-type', JSON_TYPE).send(BODY.replace('stored', 'fastify'));
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
after(async () => {
  await app.close();
  await db.drop();
});

const answeredRaw = (answer: Answer) => answer.body === BODY;
const answeredByFastify = (answer: Answer) => answer.body === BODY.replace('stored', 'fastify');

/** The headers but those of one request alone. */
function comparable(headers: http.IncomingHttpHeaders) {
  const { date: _date, 'x-request-id': _id, ...rest } = headers;
  return rest;
}

async function counted(status: string): Promise<number> {
  const metric = (await client.register.getSingleMetric('bellwether_http_requests_total')?.get())?.values ?? [];
  return metric.find((value) => value.labels.route === '/hot/path' && value.labels.status === status && value.labels.method === 'GET')?.value ?? 0;
}

describe('raw answers', () => {
  test('an ordinary request is answered raw with the headers Fastify gives the same answer', async () => {
    mode = 'answer';
    const raw = await send(`${url}/hot/path?token=phc_abc&send_cohorts`);
    const whole = await send(`${url}//hot/path?token=phc_abc&send_cohorts`);
    assert.ok(answeredRaw(raw), raw.body);
    assert.ok(answeredByFastify(whole), whole.body);
    const { 'content-length': rawLength, ...rawHeaders } = comparable(raw.headers);
    const { 'content-length': wholeLength, ...wholeHeaders } = comparable(whole.headers);
    assert.deepEqual(rawHeaders, wholeHeaders);
    assert.equal(rawLength, String(BODY.length));
    assert.equal(wholeLength, String(BODY.length + 1));
    assert.equal(raw.headers['x-content-type-options'], 'nosniff');
    assert.match(String(raw.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    assert.deepEqual({ ...seenRaw.at(-1)?.query }, { token: 'phc_abc', send_cohorts: '' });
    // The client's request id is kept, as Fastify keeps it.
    const named = await send(`${url}/hot/path/`, 'GET', { 'x-request-id': 'abc-123' });
    assert.ok(answeredRaw(named));
    assert.equal(named.headers['x-request-id'], 'abc-123');
  });

  test('a 304 carries the security headers Fastify gives an answer without a content type', async () => {
    mode = 'not-modified';
    const raw = await send(`${url}/hot/path`);
    const whole = await send(`${url}//hot/path`);
    assert.equal(raw.status, 304);
    assert.equal(whole.status, 304);
    assert.deepEqual(comparable(raw.headers), comparable(whole.headers));
    assert.ok(raw.headers['content-security-policy']);
  });

  test('anything out of the ordinary goes to Fastify: other paths, methods, escapes, repeated names, declines and failures', async () => {
    mode = 'answer';
    for (const path of ['/hot/path?x=%00', '/hot/path?token=a&token=b', '/hot/path?q=a+b', '/HOT/path', '/hot/path//', '/hot/%70ath']) {
      const answer = await send(`${url}${path}`);
      assert.ok(!answeredRaw(answer), path);
    }
    // A NUL in the query is refused by Fastify's check, as before.
    assert.equal((await send(`${url}/hot/path?x=%00`)).status, 400);
    const head = await send(`${url}/hot/path`, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    for (const next of ['decline', 'fail'] as const) {
      mode = next;
      const before = seenRaw.length;
      const answer = await send(`${url}/hot/path`);
      assert.equal(seenRaw.length, before + 1, next);
      assert.ok(answeredByFastify(answer), next);
    }
  });

  test('counted in the request metrics under the route pattern, and logged with the fields of Fastify\'s lines, the token redacted', async () => {
    mode = 'answer';
    const before = await counted('200');
    lines.length = 0;
    const raw = await send(`${url}/hot/path?token=phc_secret123`);
    assert.ok(answeredRaw(raw));
    const rawLines = lines.splice(0);
    await send(`${url}//hot/path?token=phc_secret123`);
    const wholeLines = lines.splice(0);
    assert.equal(await counted('200'), before + 2);

    const shape = (line: Record<string, unknown>) => ({
      msg: line.msg,
      level: line.level,
      keys: Object.keys(line).sort(),
      req: line.req ? Object.keys(line.req as object).sort() : null,
      res: line.res ?? null,
    });
    assert.deepEqual(rawLines.map(shape), wholeLines.map(shape));
    assert.deepEqual(rawLines.map((line) => line.msg), ['incoming request', 'request completed']);
    const [incoming] = rawLines;
    const req = incoming.req as Record<string, unknown>;
    assert.equal(req.url, '/hot/path?token=[redacted]');
    assert.equal(req.method, 'GET');
    assert.equal(req.remoteAddress, '127.0.0.1');
    assert.equal(rawLines[0].reqId, raw.headers['x-request-id']);
    assert.equal(rawLines[1].reqId, raw.headers['x-request-id']);
    assert.ok(!JSON.stringify(rawLines).includes('phc_secret123'));
  });
});
