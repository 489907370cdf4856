/**
 * Early answers (src/kernel/http/early-answer.ts): given from the route's onRequest hook with the
 * headers every answer carries, or declined, and then the route answers as if nothing had happened,
 * with the very body the client sent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { EarlyAnswers, type EarlyAnswerer } from '../../src/kernel/http/early-answer.ts';

interface Seen {
  handled: string[];
  onSend: number;
  onResponse: number;
}

async function appWith(answer: EarlyAnswerer): Promise<{ app: FastifyInstance; seen: Seen; early: EarlyAnswers }> {
  const app = Fastify();
  // As the service's error handler answers a database out of reach.
  app.setErrorHandler(async (_error, _request, reply) => reply.code(503).send({ unavailable: true }));
  const early = new EarlyAnswers();
  const seen: Seen = { handled: [], onSend: 0, onResponse: 0 };
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  // An earlier onRequest hook's header (as the public surface's CORS hook sets them).
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('access-control-allow-origin', 'https://example.com');
  });
  // Where the service counts, times and logs every answer: once for an early answer too.
  app.addHook('onResponse', async () => {
    seen.onResponse += 1;
  });
  app.addHook('onSend', async (request, reply, payload) => {
    seen.onSend += 1;
    early.finish(request, reply);
    return payload;
  });
  const hooks = early.hooks(answer, { bodyLimit: 1024 });
  app.post('/thing', { ...hooks }, async (request) => {
    // Buffers from the catch-all parser, objects from Fastify's JSON parser.
    seen.handled.push(Buffer.isBuffer(request.body) ? request.body.toString('utf8') : JSON.stringify(request.body));
    return { handled: true };
  });
  app.get('/thing', { ...early.hooks(answer) }, async () => ({ handled: true }));
  await app.ready();
  return { app, seen, early };
}

describe('early answers', () => {
  it('answers from the hook with the status, payload and the headers of every answer, without the later hooks or the handler', async () => {
    const { app, seen } = await appWith(async (request, reply, body) => {
      reply.header('content-type', 'application/json; charset=utf-8');
      return { status: 200, payload: JSON.stringify({ early: true, body: body?.toString('utf8') ?? null, method: request.method }) };
    });
    const response = await app.inject({ method: 'POST', url: '/thing', payload: 'hello' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { early: true, body: 'hello', method: 'POST' });
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(response.headers['content-length'], String(response.rawPayload.length));
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    assert.match(String(response.headers['x-request-id']), /.+/);
    assert.equal(response.headers['access-control-allow-origin'], 'https://example.com');
    assert.deepEqual(seen, { handled: [], onSend: 0, onResponse: 1 });
    await app.close();
  });

  it('a declined request reaches the route with the same body, through every hook', async () => {
    for (const decline of [async () => null, async () => Promise.reject(new Error('refused'))]) {
      const { app, seen } = await appWith(decline);
      const body = JSON.stringify({ text: 'é'.repeat(300) });
      const response = await app.inject({ method: 'POST', url: '/thing', headers: { 'content-type': 'application/json' }, payload: body });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { handled: true });
      assert.deepEqual(seen, { handled: [body], onSend: 1, onResponse: 1 });
      assert.equal(response.headers['access-control-allow-origin'], 'https://example.com');
      await app.close();
    }
  });

  it('the database out of reach is answered at once by the error handler, not waited for again by the route', async () => {
    const { app, seen } = await appWith(async () => {
      throw new Error('timeout exceeded when trying to connect');
    });
    const response = await app.inject({ method: 'POST', url: '/thing', payload: 'hello' });
    assert.equal(response.statusCode, 503);
    assert.deepEqual(response.json(), { unavailable: true });
    assert.deepEqual(seen.handled, []);
    await app.close();
  });

  it('leaves bodies past the limit unread: the route refuses them as before', async () => {
    let asked = 0;
    const { app, seen } = await appWith(async () => {
      asked += 1;
      return { status: 200, payload: 'early' };
    });
    const response = await app.inject({ method: 'POST', url: '/thing', payload: 'x'.repeat(2048) });
    assert.equal(response.statusCode, 200);
    assert.equal(asked, 0);
    assert.equal(seen.handled[0].length, 2048);
    await app.close();
  });

  it('a 304 has no body; HEAD is left to the route', async () => {
    const { app } = await appWith(async () => ({ status: 304, payload: null }));
    const notModified = await app.inject({ method: 'GET', url: '/thing' });
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.rawPayload.length, 0);
    const head = await app.inject({ method: 'HEAD', url: '/thing' });
    assert.equal(head.statusCode, 200);
    await app.close();
  });

  it('says connection: close once the server closes', async () => {
    const { app, early } = await appWith(async () => ({ status: 200, payload: 'early' }));
    early.closing = true;
    const response = await app.inject({ method: 'POST', url: '/thing', payload: '{}' });
    assert.equal(response.headers.connection, 'close');
    await app.close();
  });
});
