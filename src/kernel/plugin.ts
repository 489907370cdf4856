/**
 * The ground floor every area stands on: the Fastify server, the JSON body and query checks, the
 * validator, the one error renderer, request metrics, the change bus and the units of work, the
 * extension points, and the health routes. It imports no area.
 */
import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { DatabaseTimeouts, Pool } from '../db/pool.ts';
import { UnitsOfWork } from '../db/unit-of-work.ts';
import { CounterConnection } from './changes/counter-connection.ts';
import { ChangeCounters } from './changes/counters.ts';
import { ChangeBus, type ChangeBusOptions } from './changes/bus.ts';
import type { Kernel } from './deps.ts';
import { Extensions } from './extensions.ts';
import { healthRoutes } from './health/routes.ts';
import { EarlyAnswers } from './http/early-answer.ts';
import { RawAnswers } from './http/raw-answers.ts';
import { installErrorHandling } from './http/error-handler.ts';
import { installEmptyBodyDefault, installJsonBodyParser } from './http/json-body.ts';
import { installRequestMetrics } from './http/metrics.ts';
import { installSecurityHeaders } from './http/security-headers.ts';
import { fastifyTrustProxy, type TrustProxy } from './http/trust-proxy.ts';
import { installQueryTextCheck } from './http/query-text.ts';
import { validatorCompiler } from './http/validator.ts';
import { installLazySerializers } from './http/lazy-schemas.ts';
import { createMailer, type Mailer, type MailSettings } from './mail/mailer.ts';
import { watchPool } from './metrics/metrics.ts';

export interface ServerOptions {
  /** A pino logger; none means silent (tests). */
  logger?: FastifyBaseLogger;
  /**
   * TRUST_PROXY (see http/trust-proxy.ts): only then are `X-Forwarded-Proto` (Secure cookies) and
   * `X-Forwarded-For` (the client address sign-in throttling counts) believed. Default: not.
   */
  trustProxy?: TrustProxy;
}

export interface KernelOptions {
  pool: Pool;
  /**
   * A direct (session) connection to the pool's database, for LISTEN: its change notices keep the
   * caches of every process current. null: no notices are heard (single-process tests).
   */
  databaseUrl: string | null;
  /** The pool's timeouts, also used by the change-notice listener's own connection. */
  databaseTimeouts?: DatabaseTimeouts;
  /** The change-notice listener's heartbeat and reconnection pace (tests shorten them). */
  changeBus?: Omit<ChangeBusOptions, 'log' | 'timeouts'>;
  /** Told of every route as it is registered (the hostile-input tests enumerate the API with it). */
  onRoute?: (route: RouteOptions) => void;
  /** SMTP_URL and EMAIL_FROM; absent or null: no e-mail is sent. */
  mail?: MailSettings | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * performance.now() when the request arrived: what it reads proven current (change counters)
     * is read after this, so it holds every write acknowledged before the request.
     */
    arrivedAt: number;
  }
  interface FastifyInstance {
    /** The database and the change notices, for the areas. */
    kernel: Kernel;
    /** The change-notice bus (tests watch its listener connection). */
    changeBus: ChangeBus;
    /** What areas contribute to each other (see extensions.ts). */
    extensions: Extensions;
    /** Hot routes' common answers given from their onRequest hook (http/early-answer.ts). */
    earlyAnswers: EarlyAnswers;
    /** The hottest polls answered before Fastify routes them (http/raw-answers.ts). */
    rawAnswers: RawAnswers;
    /** The one SMTP sender (invites, password resets); null when SMTP_URL is unset. */
    mailer: Mailer | null;
  }
}

export function createServer(options: ServerOptions): FastifyInstance {
  const trustProxy = options.trustProxy ?? false;
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    bodyLimit: 10 * 1024 * 1024,
    forceCloseConnections: 'idle',
    trustProxy: fastifyTrustProxy(trustProxy),
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Raw answers go first; Fastify's own listener takes every request they leave.
  const rawAnswers = new RawAnswers(app.log, trustProxy !== false);
  const [fastifyListener] = app.server.listeners('request') as RequestListener[];
  app.server.removeAllListeners('request');
  app.server.on('request', rawAnswers.listener(fastifyListener));
  app.decorate('rawAnswers', rawAnswers);
  return app;
}

export const kernel = fp<KernelOptions>(
  async (app, options) => {
    const bus = new ChangeBus(options.databaseUrl, {
      ...options.changeBus,
      timeouts: options.databaseTimeouts,
      log: (message) => app.log.warn(message),
    });
    const { onRoute } = options;
    if (onRoute) app.addHook('onRoute', (route) => onRoute(route as RouteOptions));
    const extensions = new Extensions();
    const units = new UnitsOfWork(options.pool, (error) => app.log.error({ err: error }, 'an effect of a committed write failed'), extensions);
    await bus.start();
    // The change-counter reads on a connection of their own, beside the listener's (direct, not through a pooler).
    // A read unanswered within the listener's heartbeat timeout counts it as dead (the pool answers).
    const counterConnection =
      options.databaseUrl === null ? null : new CounterConnection(options.databaseUrl, options.databaseTimeouts, options.changeBus?.heartbeatTimeoutMs);
    app.decorate('kernel', { pool: options.pool, units, bus, counters: new ChangeCounters(options.pool, counterConnection) });
    app.decorate('changeBus', bus);
    app.addHook('onClose', async () => bus.close());
    if (counterConnection) app.addHook('onClose', async () => counterConnection.close());
    app.decorate('extensions', extensions);
    app.addHook('onReady', async () => extensions.seal());
    const mailer = options.mail
      ? createMailer(options.mail, (error, what) => app.log.error({ err: { message: (error as Error).message } }, `could not send the ${what} e-mail`))
      : null;
    app.decorate('mailer', mailer);
    if (mailer) app.addHook('onClose', async () => mailer.close());

    app.decorateRequest('arrivedAt', 0);
    app.addHook('onRequest', (request, _reply, done) => {
      request.arrivedAt = performance.now();
      done();
    });
    app.setValidatorCompiler(validatorCompiler);
    await installLazySerializers(app);
    installJsonBodyParser(app);
    installEmptyBodyDefault(app);
    installQueryTextCheck(app);
    installErrorHandling(app);
    installRequestMetrics(app);
    installSecurityHeaders(app);
    watchPool(options.pool);
    // Once closing, every response says `Connection: close`: otherwise the keep-alive connection of
    // a request in flight when close began stays open and holds app.close() for the keep-alive
    // timeout (72 s).
    const earlyAnswers = new EarlyAnswers();
    app.decorate('earlyAnswers', earlyAnswers);
    app.addHook('preClose', async () => {
      earlyAnswers.closing = true;
      app.rawAnswers.closing = true;
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      earlyAnswers.finish(request, reply);
      done(null, payload);
    });
    await app.register(healthRoutes(options.pool));
  },
  { name: 'kernel', fastify: '5.x' },
);
