import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FlagDeps } from '../deps.ts';
import { refuseOtherMethods } from '../../kernel/http/method-not-allowed.ts';
import { sendJson } from '../../kernel/http/send-json.ts';
import { toUserSummary } from '../../accounts/users/user-summary.ts';
import { flagJson, renderFlag } from '../present.ts';
import { parseFlagId, viewerOf } from '../routes.ts';
import { FlagParams, FlagResponse } from '../schemas.ts';
import { runLifecycleAction, type LifecycleAction } from './lifecycle.ts';
import { dependentsOf } from './read.ts';

const TAGS = ['feature_flags'];

const SUMMARIES: Record<LifecycleAction, string> = {
  enable: 'Enable the flag (only `active` changes). Archived flags and flags depending on disabled flags are refused (400).',
  disable: 'Disable the flag (only `active` changes). Refused (400) while other active flags depend on it.',
  archive: 'Archive the flag: left out of the default list, and disabled in the same write when enabled.',
  unarchive: 'Unarchive the flag; it stays disabled.',
};

const DependentFlags = Type.Array(Type.Object({ id: Type.Integer(), key: Type.String(), name: Type.String({ description: 'the name, else the key' }) }));

/** PostHog's flag lifecycle actions and `dependent_flags`, at the flags' prefix. */
export function flagLifecycleRoutes(deps: FlagDeps) {
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();

    for (const action of ['enable', 'disable', 'archive', 'unarchive'] as const) {
      refuseOtherMethods(root, `/:id/${action}`, ['POST']);
      app.post(
        `/:id/${action}`,
        {
          config: { scope: 'feature_flag:write' },
          schema: {
            tags: TAGS,
            summary: SUMMARIES[action],
            description: 'No body is read. A flag already in the asked state is answered unchanged (no new version). A deleted flag is a 400.',
            params: FlagParams,
            response: { 200: FlagResponse },
          },
        },
        async (request, reply) => {
          const viewer = viewerOf(request);
          const flag = await runLifecycleAction(deps, action, {
            projectId: request.project.id,
            flagId: parseFlagId(request.params.id),
            viewer,
            actor: toUserSummary(request.principal.user),
          });
          return sendJson(reply.header('etag', `"${flag.version}"`), flagJson(renderFlag(flag), viewer, new Date()));
        },
      );
    }

    refuseOtherMethods(root, '/:id/dependent_flags', ['GET']);
    app.get(
      '/:id/dependent_flags',
      {
        config: { scope: 'feature_flag:read' },
        schema: { tags: TAGS, summary: 'Active flags that depend on this flag, by key', params: FlagParams, response: { 200: DependentFlags } },
      },
      async (request) => (await dependentsOf(deps.pool, deps.flagCache, request.project.id, parseFlagId(request.params.id))).dependent_flags,
    );
  };
}
