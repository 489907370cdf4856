import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app.ts';

/** /api/projects/:project_id/event_definitions/{typescript,python,golang} */
export function codegenRoutes(_deps: AppDeps) {
  return async function register(_app: FastifyInstance): Promise<void> {};
}
