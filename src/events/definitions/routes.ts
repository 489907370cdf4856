import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app.ts';

/** /api/projects/:project_id/event_definitions */
export function eventDefinitionRoutes(_deps: AppDeps) {
  return async function register(_app: FastifyInstance): Promise<void> {};
}
