/**
 * Early answers: a hot route's common case answered from its `onRequest` hook, before Fastify
 * parses the body and runs the rest of the lifecycle (pre-handler hooks, the handler's promise
 * chain, the `onSend` hooks, the reply's serialisation), which costs more than the answer itself
 * for SDK requests (`/flags`, the flag definitions).
 *
 * The route's `answer` either gives the whole answer (status and payload; headers set on the
 * reply as usual) or declines (null, or it throws; but the database out of reach is answered at once
 * by the error handler) and Fastify takes the request as if nothing had
 * happened: the body already read is handed to Fastify's parser again (the `preParsing` hook), so
 * every refusal, error and limit is the normal path's, word for word. An early answer carries the
 * headers every answer carries (the earlier `onRequest` hooks' own, e.g. CORS; the security
 * headers; `x-request-id`; `connection: close` once the server closes), is counted in the request
 * metrics and logged like any other.
 */
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler, preParsingHookHandler } from 'fastify';
import { isDatabaseUnavailable } from '../../db/unavailable.ts';
import { setSecurityHeaders } from './security-headers.ts';

export interface EarlyAnswer {
  status: number;
  /** null: no body (a 304). */
  payload: Buffer | string | null;
}

/**
 * The route's early answer, or null to leave the request to Fastify. `body` is the request body
 * read whole (routes that read one), before any decoding.
 */
export type EarlyAnswerer = (request: FastifyRequest, reply: FastifyReply, body: Buffer | null) => Promise<EarlyAnswer | null>;

export interface EarlyAnswerOptions {
  /** Read the body first, when it declares a length up to this many bytes; else the request is left to Fastify unread. */
  bodyLimit?: number;
}

export interface EarlyAnswerHooks {
  onRequest: onRequestAsyncHookHandler;
  preParsing: preParsingHookHandler;
}

/** Bodies read by an early answer that declined, for Fastify's parser to read again. */
const replays = new WeakMap<IncomingMessage, Buffer>();

function readWhole(raw: IncomingMessage, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const done = (error?: Error) => {
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('error', onEnd);
      if (error) reject(error);
      else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received));
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
      if (received > length) done(new Error('more bytes than the declared length'));
    };
    const onEnd = (error?: Error) => done(error);
    raw.on('data', onData);
    raw.on('end', onEnd);
    raw.on('error', onEnd);
  });
}

/** A declared length within the limit, and no other framing; else the body is left to Fastify. */
function declaredLength(request: FastifyRequest, limit: number): number | null {
  const headers = request.headers;
  if (headers['transfer-encoding'] !== undefined) return null;
  const text = headers['content-length'];
  if (text === undefined || !/^\d{1,9}$/.test(text)) return null;
  const length = Number(text);
  return length <= limit ? length : null;
}

export class EarlyAnswers {
  /** Set once the server begins to close: every answer then says `connection: close`. */
  closing = false;

  /** The headers the kernel adds to every answer, early or not. */
  finish(request: FastifyRequest, reply: FastifyReply): void {
    reply.header('x-request-id', request.id);
    if (this.closing) reply.header('connection', 'close');
  }

  /** The route hooks that give `answer`'s answers early (add both to the route). */
  hooks(answer: EarlyAnswerer, options: EarlyAnswerOptions = {}): EarlyAnswerHooks {
    const bodyLimit = options.bodyLimit;
    const onRequest: onRequestAsyncHookHandler = async (request, reply) => {
      // Fastify answers HEAD from the GET route (same hooks): left to it.
      if (request.method === 'HEAD') return;
      let body: Buffer | null = null;
      if (bodyLimit !== undefined) {
        const length = declaredLength(request, bodyLimit);
        if (length === null) return;
        try {
          body = await readWhole(request.raw, length);
        } catch {
          // The client broke off or sent more than it declared: Fastify's parser says so (with
          // what is left of the stream, which is what it would have read).
          return;
        }
      }
      let early: EarlyAnswer | null = null;
      try {
        early = await answer(request, reply, body);
      } catch (error) {
        // The database out of reach: the route would wait for it a second time and answer the same
        // 503, so the error handler answers now.
        if (isDatabaseUnavailable(error)) throw error;
        early = null;
      }
      if (early === null) {
        if (body !== null) replays.set(request.raw, body);
        return;
      }
      this.send(request, reply, early);
    };
    const preParsing: preParsingHookHandler = (request, _reply, payload, done) => {
      const replay = replays.get(request.raw);
      if (replay === undefined) return done(null, payload);
      replays.delete(request.raw);
      done(null, Readable.from([replay]));
    };
    return { onRequest, preParsing };
  }

  private send(request: FastifyRequest, reply: FastifyReply, early: EarlyAnswer): void {
    reply.hijack();
    reply.code(early.status);
    setSecurityHeaders(request, reply);
    this.finish(request, reply);
    const payload = early.payload;
    if (payload !== null) reply.header('content-length', typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length);
    const raw = reply.raw;
    raw.writeHead(early.status, reply.getHeaders() as Record<string, string | number | string[]>);
    // Counted, timed and logged by the onResponse hooks and Fastify's request log, which run for a
    // hijacked reply too once it finishes.
    raw.end(payload ?? undefined);
  }
}
