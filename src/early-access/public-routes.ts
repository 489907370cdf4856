/**
 * `GET /api/early_access_features/?token=<phc_…>[&stage=…]`, what posthog-js's
 * `getEarlyAccessFeatures` reads: public, open to every origin, the features of the token's
 * project in the stages asked for (default beta).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { EarlyAccessDeps } from './deps.ts';
import { presentPublicFeature } from './present.ts';
import { PublicQuery, PublicResponse } from './schemas.ts';
import { featuresInStages } from './store.ts';

export const PUBLIC_URL = '/api/early_access_features';

export function stagesOf(raw: string | string[] | undefined): string[] {
  if (raw === undefined) return ['beta'];
  return (Array.isArray(raw) ? raw : [raw]).slice(0, 10);
}

export function earlyAccessPublicRoutes(deps: EarlyAccessDeps) {
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      PUBLIC_URL,
      {
        config: { public: { token: ['query'], cors: true } },
        schema: {
          tags: ['early access features'],
          summary: 'The early access features posthog-js lists (public)',
          description: 'Authenticated by the project token (`?token=<phc_…>`). `stage` may repeat; default `beta`.',
          security: [{}],
          querystring: PublicQuery,
          response: { 200: PublicResponse },
        },
      },
      async (request) => {
        const rows = await featuresInStages(deps.pool, request.publicProject, stagesOf(request.query.stage));
        return { earlyAccessFeatures: rows.map(presentPublicFeature) };
      },
    );
  };
}
