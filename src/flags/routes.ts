import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app.ts';

export function featureFlagRoutes(_deps: AppDeps) {
  return async function register(_app: FastifyInstance): Promise<void> {};
}
