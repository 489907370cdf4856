import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app.ts';

/** Organizations, projects, users and personal API keys (CONTRACT §2). */
export function platformRoutes(_deps: AppDeps) {
  return async function register(_app: FastifyInstance): Promise<void> {};
}
