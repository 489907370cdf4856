import type { FastifyInstance } from 'fastify';
import type { Pool } from '../../db/pool.ts';

export function healthRoutes(pool: Pool) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get('/_health', { config: { public: true }, schema: { hide: true } }, async () => ({ status: 'ok' }));
    app.get('/_readyz', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
      try {
        await pool.query('SELECT 1');
        return { status: 'ok', database: 'ok' };
      } catch (error) {
        return reply.code(503).send({ status: 'unavailable', database: (error as Error).message });
      }
    });
  };
}
