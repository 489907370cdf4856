/**
 * Raw answers: the SDK's hottest polls answered from the HTTP server's `request` listener, before
 * Fastify routes the request, builds its request and reply objects and runs its hooks (which cost
 * more than the answer itself when the answer is cached bytes, e.g. the flag definitions).
 *
 * Only an ordinary request is answered here: a registered method and exact path (one trailing
 * slash allowed), a query string of plain characters (no percent escapes, so no NUL or lone
 * surrogate can hide in it; no repeated names), not while the server closes. Everything else, and
 * every request whose answerer declines (null) or fails, goes to Fastify untouched (nothing of it
 * has been read), which answers it as always, refusals and errors included.
 *
 * What Fastify's path gives every answer is given here too: the security headers (the same
 * function), `x-request-id` (the client's, else a new UUID), the request metrics under the route's
 * pattern, and the access log's two lines with Fastify's fields (the URL redacted by the logger's
 * request serializer). With TRUST_PROXY set and the access log on, the client address would need
 * Fastify's proxy logic: those requests go to Fastify.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { httpDuration, httpRequests } from '../metrics/metrics.ts';
import { securityHeaders } from './security-headers.ts';

/** What an answerer sees of the request. */
export interface RawRequest {
  readonly method: string;
  /** The path without its query and trailing slash, as registered. */
  readonly path: string;
  /** Plain query parameters, each named once. */
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
}

export interface RawAnswer {
  status: number;
  /** The answer's own headers (lower-case names); the kernel adds its own. */
  headers: Record<string, string>;
  /** null: no body (a 304). */
  payload: Buffer | string | null;
}

/** The answer, or null to leave the request to Fastify (so does a rejection). */
export type RawAnswerer = (request: RawRequest) => Promise<RawAnswer | null>;

interface Route {
  /** The route's pattern, as Fastify reports it (metrics' `route` label). */
  pattern: string;
  answer: RawAnswerer;
}

const PLAIN_QUERY = /^[\w.~=&-]*$/;
const PINO_INFO = 30;
const PINO_LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

function plainQuery(text: string): Record<string, string> | null {
  if (!PLAIN_QUERY.test(text)) return null;
  const query: Record<string, string> = Object.create(null);
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = equals === -1 ? pair : pair.slice(0, equals);
    if (name in query) return null;
    query[name] = equals === -1 ? '' : pair.slice(equals + 1);
  }
  return query;
}

export class RawAnswers {
  /** Set once the server begins to close: Fastify then answers everything (`connection: close`). */
  closing = false;
  private readonly routes = new Map<string, Route>();

  constructor(
    private readonly log: FastifyBaseLogger,
    /** TRUST_PROXY is set: the client address is Fastify's to work out. */
    private readonly trustsProxy: boolean,
  ) {}

  /** Answers `GET path` (also `path/`) with `answer` when it can. */
  get(path: string, answer: RawAnswerer): void {
    this.routes.set(`GET ${path}`, { pattern: path, answer });
  }

  /** The server's request listener: raw answers first, `fastify` for the rest. */
  listener(fastify: RequestListener): RequestListener {
    return (req, res) => {
      const arrived = performance.now();
      const found = this.routes.size === 0 || this.closing ? null : this.match(req);
      if (found === null) return fastify(req, res);
      const logging = this.accessLogOn();
      if (logging && this.trustsProxy) return fastify(req, res);
      found.route.answer(found.request).then(
        (answer) => {
          if (answer === null) return fastify(req, res);
          try {
            this.send(req, res, found.route.pattern, answer, arrived, logging);
          } catch {
            res.destroy();
          }
        },
        () => fastify(req, res),
      );
    };
  }

  private match(req: IncomingMessage): { route: Route; request: RawRequest } | null {
    const url = req.url ?? '';
    const mark = url.indexOf('?');
    let path = mark === -1 ? url : url.slice(0, mark);
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    const method = req.method ?? '';
    const route = this.routes.get(`${method} ${path}`);
    if (route === undefined) return null;
    const query = mark === -1 ? {} : plainQuery(url.slice(mark + 1));
    if (query === null) return null;
    return { route, request: { method, path, query, headers: req.headers } };
  }

  private accessLogOn(): boolean {
    const level = (this.log as { level?: string }).level;
    return level !== undefined && (PINO_LEVELS[level] ?? 0) <= PINO_INFO;
  }

  private send(req: IncomingMessage, res: ServerResponse, pattern: string, answer: RawAnswer, arrived: number, logging: boolean): void {
    const header = req.headers['x-request-id'];
    const id = typeof header === 'string' && header !== '' ? header : randomUUID();
    const log = logging ? this.log.child({ reqId: id }) : null;
    log?.info({ req: { method: req.method, url: req.url, host: req.headers.host, ip: req.socket.remoteAddress, socket: req.socket } }, 'incoming request');
    const headers: Record<string, string | number> = {
      ...answer.headers,
      ...securityHeaders(pattern, answer.headers['content-type'] ?? '', answer.headers['cache-control'] !== undefined),
      'x-request-id': id,
    };
    const payload = answer.payload;
    if (payload !== null) headers['content-length'] = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
    res.writeHead(answer.status, headers);
    res.end(payload ?? undefined);
    const elapsed = performance.now() - arrived;
    const labels = { method: req.method ?? '', route: pattern, status: String(answer.status) };
    httpRequests.inc(labels);
    httpDuration.observe(labels, elapsed / 1000);
    log?.info({ res: { statusCode: answer.status }, responseTime: elapsed }, 'request completed');
  }
}
