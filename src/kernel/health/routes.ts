import type { FastifyInstance } from 'fastify';
import type { Pool } from '../../db/pool.ts';
import { probeDatabase } from '../../db/probe.ts';

/** `/_readyz` answers within about this long (a probe's own timeout is usually 2 s or more). */
export const READINESS_TIMEOUT_MS = 1_500;

export function healthRoutes(pool: Pool) {
  return async function register(app: FastifyInstance): Promise<void> {
    // Liveness: the process answers; it never touches the database.
    app.get('/_health', { config: { public: true }, schema: { hide: true } }, async () => ({ status: 'ok' }));
    // Readiness: this process can reach the database now, through its own pool.
    app.get('/_readyz', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
      try {
        await probeDatabase(pool, READINESS_TIMEOUT_MS);
        return { status: 'ok', database: 'ok' };
      } catch (error) {
        return reply.code(503).send({ status: 'unavailable', database: (error as Error).message });
      }
    });
  };
}
