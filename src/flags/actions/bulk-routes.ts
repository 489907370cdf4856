import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FlagDeps } from '../deps.ts';
import { refuseOtherMethodsOn } from '../../kernel/http/method-not-allowed.ts';
import { toUserSummary } from '../../accounts/users/user-summary.ts';
import { viewerOf } from '../routes.ts';
import { ProjectParams } from '../schemas.ts';
import { BULK_DELETE_FILTER_KEYS, bulkDelete, bulkUpdateTags } from './bulk.ts';

const TAGS = ['feature_flags'];
const MAX_IDS = 1000;
const Int32 = Type.Integer({ minimum: 1, maximum: 2147483647 });

const BulkTagsBody = Type.Object({
  ids: Type.Array(Int32, { maxItems: MAX_IDS, description: 'flag ids' }),
  action: Type.Enum(['add', 'remove', 'set'], { description: 'add these tags, remove them, or set them as the only tags' }),
  tags: Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 }),
});
const BulkTagsResponse = Type.Object({
  updated: Type.Array(Type.Object({ id: Type.Integer(), tags: Type.Array(Type.String()) })),
  skipped: Type.Array(Type.Object({ id: Type.Integer(), reason: Type.String() })),
});

const BulkDeleteBody = Type.Object({
  filters: Type.Optional(
    Type.Object({}, { additionalProperties: true, description: `the list's filters: ${BULK_DELETE_FILTER_KEYS.join(', ')} (others are a 400)` }),
  ),
  ids: Type.Optional(Type.Array(Type.Unknown(), { maxItems: MAX_IDS, description: 'flag ids (integers or digit strings)' })),
});
const BulkDeleteResponse = Type.Object({
  deleted: Type.Array(
    Type.Object({
      id: Type.Integer(),
      key: Type.String(),
      rollout_state: Type.Enum(['fully_rolled_out', 'not_rolled_out', 'partial']),
      active_variant: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  errors: Type.Array(Type.Object({ id: Type.Unknown(), key: Type.Optional(Type.String()), reason: Type.String() })),
});

/** `bulk_update_tags` and `bulk_delete` at the flags' prefix. */
export function flagBulkRoutes(deps: FlagDeps) {
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethodsOn(root, { '/bulk_update_tags': ['POST'], '/bulk_delete': ['POST'] });
    const who = (request: Parameters<typeof viewerOf>[0]) => ({
      projectId: request.project.id,
      viewer: viewerOf(request),
      actor: toUserSummary(request.principal.user),
    });

    app.post(
      '/bulk_update_tags',
      {
        config: { scope: 'feature_flag:write' },
        schema: {
          tags: TAGS,
          summary: 'Add, remove or set tags on many flags',
          description: 'Unknown ids, and flags the rules refuse, are reported in `skipped`; the others are updated (each with its activity entry).',
          params: ProjectParams,
          body: BulkTagsBody,
          response: { 200: BulkTagsResponse },
        },
      },
      async (request) => bulkUpdateTags(deps, who(request), request.body),
    );

    app.post(
      '/bulk_delete',
      {
        config: { scope: 'feature_flag:write' },
        schema: {
          tags: TAGS,
          summary: "Soft-delete many flags, by ids or by the list's filters (one or the other)",
          description: 'Flags that cannot be deleted (other flags depend on them, unknown ids) are reported in `errors`; the others are deleted.',
          params: ProjectParams,
          body: BulkDeleteBody,
          response: { 200: BulkDeleteResponse },
        },
      },
      async (request) => bulkDelete(deps, who(request), { filters: request.body.filters as Record<string, unknown> | undefined, ids: request.body.ids }),
    );
  };
}
