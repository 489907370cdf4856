import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../../app.ts';
import { Me } from './schemas.ts';
import { me } from './service.ts';

export function userRoutes(deps: AppDeps) {
  return async function register(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/users/@me',
      {
        config: { scope: 'user:read' },
        schema: {
          tags: ['platform'],
          summary: 'The caller, with their current organization and project',
          response: { 200: Me },
        },
      },
      async (request) => me(deps, request.principal),
    );
  };
}
