import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app.ts';

/** /api/projects/:project_id/persons */
export function personRoutes(_deps: AppDeps) {
  return async function register(_app: FastifyInstance): Promise<void> {};
}
