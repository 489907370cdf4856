import type { ReadHandle } from '../db/pool.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { orNotFound, RawErrorResponse, validationError } from '../kernel/errors.ts';
import type { FlagEditGate } from './gate.ts';
import { checkIfMatch, checkOriginalFlag } from './concurrency.ts';
import { checkDashboards } from './dashboards.ts';
import { describeFlags } from './dependencies.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';
import { keyTaken } from './errors.ts';
import { overridesFirst } from './derive.ts';
import { ensureRoomForFlag } from './limit.ts';
import { flagLookup } from './lookup.ts';
import { presentFlag, type FlagViewer } from './present.ts';
import { flagValuesOf, type FlagRecord, type FlagValues } from './record.ts';
import type { FlagWriteBody } from './schemas.ts';
import { activeDependents, findFlag, linkDashboards, liveFlagsByIds, liveKeyTaken, updateFlag } from './store.ts';
import type { UserSummary } from '../accounts/users/user-summary.ts';
import type { FlagWriteDeps } from './write-deps.ts';
import type { ActivityTrigger } from './activity.ts';
import type { FlagFilters } from '../targeting/types.ts';
import { dependencyIdsOf, validateFilters, validateKeyFormat } from './validation/index.ts';
import { applyPlainFields } from './write-fields.ts';
import { commitFlagWrite } from './writer.ts';

export interface UpdateRequest {
  projectId: number;
  flagId: number;
  viewer: FlagViewer;
  actor: UserSummary;
  /** The partial update; a function builds it from the flag as locked for the write (a scheduled change's operation). */
  body: FlagWriteBody | ((before: FlagRecord) => FlagWriteBody);
  ifMatch: number | '*' | null;
  /** A unit already open that this update joins (a copy writing cohorts and the flag together). */
  within?: UnitOfWork;
  /** The job making this change for `actor` (a scheduled change). */
  trigger?: ActivityTrigger;
  /** Gates that may hold this edit for approval (API edits only; an approved or scheduled change passes none). */
  gates?: readonly FlagEditGate[];
  httpMethod?: 'PATCH' | 'PUT';
}


/** Early-access enrollment properties follow the flag's key. */
function renameEnrollmentProperties(filters: FlagFilters, newKey: string): FlagFilters {
  if (!filters.super_groups) return filters;
  return {
    ...filters,
    super_groups: filters.super_groups.map((group) => ({
      ...group,
      properties: (group.properties ?? []).map((p) =>
        typeof p.key === 'string' && p.key.startsWith('$feature_enrollment/') ? { ...p, key: `$feature_enrollment/${newKey}` } : p,
      ),
    })),
  };
}

async function checkStateTransitions(db: ReadHandle, projectId: number, before: FlagRecord, next: FlagValues): Promise<void> {
  if (next.archived && next.active && !next.deleted) {
    throw before.archived
      ? validationError('Cannot enable an archived feature flag. Unarchive it first.', 'active')
      : validationError('An archived feature flag must be disabled: send "active": false with "archived": true, or use the archive action.', 'archived');
  }
  const deleting = next.deleted && !before.deleted;
  if (deleting && before.experiment_set.length > 0) {
    throw validationError(
      `Cannot delete a feature flag that is linked to active experiment(s) with ID(s): ${before.experiment_set.join(', ')}. Please delete the experiment(s) before deleting the flag.`,
    );
  }
  const disabling = !next.active && before.active && !next.deleted;
  if (deleting || disabling) {
    const dependents = await activeDependents(db, projectId, before.id);
    if (dependents.length > 0) {
      const verb = deleting ? 'delete' : 'disable';
      const remedy = deleting ? 'update or delete' : 'update or disable';
      throw validationError(
        `Cannot ${verb} this feature flag because other flags depend on it: ${describeFlags(dependents)}. Please ${remedy} the dependent flags first.`,
      );
    }
  }
  if (next.active && !before.active && !next.deleted) {
    const disabled = (await liveFlagsByIds(db, projectId, dependencyIdsOf(next.filters))).filter((f) => !f.active);
    if (disabled.length > 0) {
      throw validationError(
        `Cannot enable this feature flag because it depends on disabled flags: ${describeFlags(disabled)}. Please enable the dependency flags first.`,
      );
    }
  }
}

export async function updateFlagById(deps: FlagWriteDeps, request: UpdateRequest): Promise<FlagRecord> {
  const { projectId, flagId, viewer, actor } = request;
  try {
    const written = await deps.units.run(async (unit): Promise<FlagRecord | RawErrorResponse> => {
      const { client } = unit;
      const before = orNotFound(await findFlag(client, projectId, flagId, true));
      const body = typeof request.body === 'function' ? request.body(before) : request.body;
      const editor = before.last_modified_by?.email ?? before.created_by?.email ?? null;
      checkIfMatch(request.ifMatch, before.version, editor);
      checkOriginalFlag(body, presentFlag(before, viewer), editor);

      const next = applyPlainFields(flagValuesOf(before), body);
      if (body.key !== undefined && body.key !== before.key) {
        if (await liveKeyTaken(client, projectId, body.key, flagId)) throw keyTaken();
        next.key = validateKeyFormat(body.key);
        next.filters = renameEnrollmentProperties(next.filters, next.key);
      }
      if (!next.deleted && before.deleted) {
        if (await liveKeyTaken(client, projectId, next.key, flagId)) throw keyTaken();
        await ensureRoomForFlag(client, projectId);
      }
      // PostHog ignores a PATCH of filters that has no `groups` (so `{"payloads": …}` alone is a no-op).
      const filtersSent = body.filters !== undefined;
      const ignoredFilters = typeof body.filters === 'object' && body.filters !== null && !Array.isArray(body.filters) && !('groups' in body.filters);
      if (filtersSent && !ignoredFilters) {
        next.filters = overridesFirst(await validateFilters(body.filters, {
          isCreate: false,
          flagId,
          flagKey: next.key,
          lookup: flagLookup(client, projectId),
        }));
      }
      await checkStateTransitions(client, projectId, before, next);
      const dashboards = await checkDashboards(client, projectId, body.analytics_dashboards);
      for (const gate of request.gates ?? []) {
        const held = await gate(unit, { projectId, before, next, body, actor, organizationLevel: viewer.organizationLevel, httpMethod: request.httpMethod ?? 'PATCH' });
        if (held !== null) return held;
      }

      const row = await updateFlag(client, flagId, actor.id, next);
      await linkDashboards(client, flagId, dashboards);
      const linked = [...new Set([...before.analytics_dashboards, ...dashboards])].sort((a, b) => a - b);
      const after: FlagRecord = { ...row, created_by: before.created_by, last_modified_by: actor, analytics_dashboards: linked };
      await commitFlagWrite(deps, unit, { before, after, actorId: actor.id, trigger: request.trigger });
      return after;
    }, { retry: true, within: request.within });
    if (written instanceof RawErrorResponse) throw written;
    return written;
  } catch (error) {
    if (isUniqueViolation(error)) throw keyTaken();
    throw error;
  }
}
