import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FlagDeps } from '../deps.ts';
import { pluginJobs } from '../../kernel/jobs.ts';
import { refuseOtherMethods } from '../../kernel/http/method-not-allowed.ts';
import { sendJson } from '../../kernel/http/send-json.ts';
import { OrganizationParams } from '../../accounts/organizations/schemas.ts';
import { resolveOrganization } from '../../accounts/organizations/service.ts';
import { FlagResponse } from '../schemas.ts';
import { copyFlags, type CopyDeps, type TargetPrecondition } from './copy.ts';
import { parseIfMatch } from '../concurrency.ts';
import { validationError } from '../../kernel/errors.ts';

const URL = '/api/organizations/:organization_id/feature_flags/copy_flags';
const ProjectId = Type.Integer({ minimum: 1, maximum: 2147483647 });

const CopyBody = Type.Object({
  feature_flag_key: Type.String({ minLength: 1, maxLength: 400 }),
  from_project: ProjectId,
  target_project_ids: Type.Array(ProjectId, { minItems: 1, maxItems: 100 }),
  copy_schedule: Type.Optional(Type.Boolean({ description: 'accepted; there are no scheduled changes to copy' })),
});
const CopyResponse = Type.Object({
  success: Type.Array(FlagResponse, { description: 'the flag as written in each target project' }),
  failed: Type.Array(Type.Object({ project_id: Type.Integer(), errors: Type.String() })),
});

/** The target's precondition from the request's headers (PostHog's copy_flags has none; the flag update's `If-Match` rule). */
function copyPrecondition(ifMatch: string | undefined, ifNoneMatch: string | undefined): TargetPrecondition | undefined {
  if (ifNoneMatch !== undefined && ifNoneMatch.trim() !== '*') {
    throw validationError('If-None-Match accepts only *: the target must not hold a flag of that key.', null, 'invalid_input');
  }
  if (ifMatch !== undefined && ifNoneMatch !== undefined) throw validationError('Send If-Match or If-None-Match, not both.', null, 'invalid_input');
  if (ifNoneMatch !== undefined) return 'absent';
  return parseIfMatch(ifMatch) ?? undefined;
}

/** Copying a flag between projects of an organization (how PostHog users promote flags from staging to production). */
export function flagCopyRoutes(deps: FlagDeps) {
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    const copyDeps: CopyDeps = { ...deps, ...pluginJobs(root) };
    refuseOtherMethods(root, URL, ['POST']);
    app.post(
      URL,
      {
        config: { scope: 'feature_flag:write' },
        schema: {
          tags: ['feature_flags'],
          summary: 'Copy a flag (by key) from one project into others of the organization: created, or updated where the key is taken',
          description:
            'The cohorts the flag targets come along: a cohort of the same name in the target is used, otherwise it is created there ' +
            '(with the cohorts it references; a static cohort arrives empty). Flag dependencies name the target flag of the same key. ' +
            'Each target is written whole or not at all; a target that fails is listed in `failed`. ' +
            'With one target, `If-Match: "<version>"` (the target flag\'s version the caller saw) or `If-None-Match: *` ' +
            '(the caller saw no flag of that key there) refuses a target changed since: it is listed in `failed` with the ' +
            'words of the flag update\'s conflict, and nothing of it is written.',
          params: OrganizationParams,
          headers: Type.Object({ 'if-match': Type.Optional(Type.String()), 'if-none-match': Type.Optional(Type.String()) }),
          body: CopyBody,
          response: { 200: CopyResponse },
        },
      },
      async (request, reply) => {
        const organization = await resolveOrganization(deps, request.principal, request.params.organization_id);
        const target_precondition = copyPrecondition(request.headers['if-match'], request.headers['if-none-match']);
        const { success, failed } = await copyFlags(copyDeps, request.principal, organization.id, { ...request.body, target_precondition });
        return sendJson(reply, `{"success":[${success.join(',')}],"failed":${JSON.stringify(failed)}}`);
      },
    );
  };
}
