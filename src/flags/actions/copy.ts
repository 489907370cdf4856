/**
 * `POST /api/organizations/{id}/feature_flags/copy_flags/` (PostHog): copies one flag, by key, from
 * a project into other projects of the organization: created where the key is free, updated where
 * a live flag holds it. The cohorts the flag targets come along (reused by name, or created; see
 * copy-cohort-writes.ts); the flag's cohort ids and flag-dependency ids are rewritten to the target's. Each target is
 * one unit of work (its cohorts and its flag); a target that fails is reported, nothing of it is
 * written, and the others are still written (PostHog's behaviour).
 */
import type { CohortDeps } from '../../cohorts/service.ts';
import type { FlagDeps } from '../deps.ts';
import { principalCanReach, type Principal } from '../../accounts/auth/principal.ts';
import { ApiError, validationError } from '../../kernel/errors.ts';
import { toUserSummary } from '../../accounts/users/user-summary.ts';
import { createFlag } from '../create.ts';
import { conflictError } from '../errors.ts';
import { flagJson, renderFlag, type FlagViewer } from '../present.ts';
import type { FlagRecord } from '../record.ts';
import type { FlagWriteBody } from '../schemas.ts';
import { liveFlagIdByKey } from '../store.ts';
import { updateFlagById } from '../update.ts';
import { membershipLevel } from '../../accounts/auth/principal.ts';
import { carryCohorts } from './copy-cohort-writes.ts';
import { CohortCopyRefusal, remapCohortIds } from './copy-cohorts.ts';
import { remapFlagDependencies } from './copy-dependencies.ts';

export interface CopyRequest {
  feature_flag_key?: string;
  from_project?: number;
  target_project_ids?: number[];
  /**
   * What the caller saw in the one target (`If-Match` / `If-None-Match: *`): that flag version,
   * any flag (`*`), or no flag of the key (`absent`). A target that changed since is not written.
   */
  target_precondition?: TargetPrecondition;
}

export type TargetPrecondition = number | '*' | 'absent';

export interface CopyAnswer {
  /** Each copied flag as the flag API renders it (JSON text, joined by the route). */
  success: string[];
  failed: { project_id: number; errors: string }[];
}

/** The fields PostHog copies. */
function copiedFields(source: FlagRecord): FlagWriteBody {
  return {
    key: source.key,
    name: source.name,
    filters: source.filters,
    active: source.active,
    ensure_experience_continuity: source.ensure_experience_continuity,
    deleted: false,
    evaluation_runtime: source.evaluation_runtime,
    bucketing_identifier: source.bucketing_identifier,
    is_remote_configuration: source.is_remote_configuration,
    has_encrypted_payloads: source.has_encrypted_payloads,
  };
}

/** The flag writer's and the cohort service's (the cohorts come along). */
export type CopyDeps = FlagDeps & CohortDeps;

export async function copyFlags(deps: CopyDeps, principal: Principal, organizationId: string, request: CopyRequest): Promise<CopyAnswer> {
  const { feature_flag_key: key, from_project: from, target_project_ids: targets } = request;
  if (!key || from === undefined || !targets || targets.length === 0) throw validationError('Missing required fields');
  const precondition = request.target_precondition ?? null;
  if (precondition !== null && new Set(targets).size !== 1) {
    throw validationError('If-Match and If-None-Match name what one target holds: send a single target project.', 'target_project_ids');
  }
  const reachable = async (projectId: number) => {
    const project = await deps.authenticator.project(projectId);
    return project !== null && project.organizationId === organizationId && principalCanReach(principal, project) ? project : null;
  };
  const sourceProject = await reachable(from);
  const sourceFlags = sourceProject ? await deps.flagCache.project(from) : undefined;
  const sourceId = sourceFlags?.liveKeyOwner(key);
  const source = sourceId === undefined ? undefined : sourceFlags?.get(sourceId)?.record;
  if (!source) throw validationError('Feature flag to copy does not exist.', 'feature_flag_key');

  const actor = toUserSummary(principal.user);
  const viewer: FlagViewer = { userId: principal.user.id, organizationLevel: membershipLevel(principal, organizationId) };
  const answer: CopyAnswer = { success: [], failed: [] };
  for (const projectId of [...new Set(targets)]) {
    if (projectId === from || !(await reachable(projectId))) {
      answer.failed.push({ project_id: projectId, errors: projectId === from ? 'The target is the source project.' : 'Target project does not exist.' });
      continue;
    }
    try {
      const copied = await deps.units.run(async (unit) => {
        // Create or update is decided inside the write's transaction, from the database.
        const existing = await liveFlagIdByKey(unit.client, projectId, key);
        const carry = { deps, unit, actor, fromProjectId: from, toProjectId: projectId };
        const cohortIds = await carryCohorts(carry, source.filters);
        const filters = await remapFlagDependencies(remapCohortIds(source.filters, cohortIds), {
          db: unit.client,
          fromProjectId: from,
          targetFlagOf: (dependencyKey) => liveFlagIdByKey(unit.client, projectId, dependencyKey),
        });
        const body = { ...copiedFields(source), filters };
        if (existing === undefined) {
          // The caller saw a flag there, and it has gone since.
          if (precondition !== null && precondition !== 'absent') throw conflictError(null);
          return createFlag(deps, projectId, actor, body, unit);
        }
        // No flag has version 0: a caller who saw none is refused with the name of who made it.
        const ifMatch = precondition === 'absent' ? 0 : precondition;
        return updateFlagById(deps, { projectId, flagId: existing, viewer, actor, body, ifMatch, within: unit });
      }, { retry: true });
      answer.success.push(flagJson(renderFlag(copied), viewer, new Date()));
    } catch (error) {
      if (error instanceof CohortCopyRefusal) {
        answer.failed.push({ project_id: projectId, errors: error.message });
        continue;
      }
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      answer.failed.push({ project_id: projectId, errors: error.attr ? `${error.attr}: ${error.message}` : error.message });
    }
  }
  return answer;
}
