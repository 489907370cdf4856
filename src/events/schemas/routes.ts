import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app.ts';

/** /api/projects/:project_id/schema_property_groups and /event_schemas */
export function schemaRoutes(_deps: AppDeps) {
  return async function register(_app: FastifyInstance): Promise<void> {};
}
