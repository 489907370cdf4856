import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app.ts';

/** POST /batch/, /capture/, /e/, /i/v0/e/ (project token auth) */
export function ingestionRoutes(_deps: AppDeps) {
  return async function register(_app: FastifyInstance): Promise<void> {};
}
