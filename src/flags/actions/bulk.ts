/**
 * Bulk flag writes (PostHog): `bulk_update_tags` and `bulk_delete`. Each flag goes through the one
 * flag writer in its own transaction (rules, activity entry, change notice); a flag the rules refuse
 * is reported, the others are still written.
 */
import { ApiError, validationError } from '../../kernel/errors.ts';
import type { UserSummary } from '../../accounts/users/user-summary.ts';
import type { ProjectFlags } from '../cache.ts';
import { decodeListQuery } from '../list-filter.ts';
import { matchesListFilter } from '../list-match.ts';
import type { FlagViewer } from '../present.ts';
import type { FlagRecord } from '../record.ts';
import type { FlagListQuery } from '../schemas.ts';
import { updateFlagById } from '../update.ts';
import { normalizeTags } from '../validation/index.ts';
import type { FlagWriteDeps } from '../write-deps.ts';

export interface Actor {
  projectId: number;
  viewer: FlagViewer;
  actor: UserSummary;
}

/** A flag the list would show (live, not owned by a survey). */
function listable(flags: ProjectFlags, id: number): FlagRecord | undefined {
  const record = flags.get(id)?.record;
  return record && !record.deleted && !record.owned_by_survey ? record : undefined;
}

/** The rules' refusal as a reason; anything else is a real failure and goes up. */
function refusal(error: unknown): string {
  if (error instanceof ApiError && error.status === 400) return error.message;
  throw error;
}

export type TagAction = 'add' | 'remove' | 'set';

export interface TagsRequest {
  ids: number[];
  action: TagAction;
  tags: string[];
}

export async function bulkUpdateTags(deps: FlagWriteDeps, who: Actor, request: TagsRequest) {
  const tags = normalizeTags(request.tags, 'tags');
  const flags = await deps.flagCache.project(who.projectId);
  const updated: { id: number; tags: string[] }[] = [];
  const skipped: { id: number; reason: string }[] = [];
  for (const id of [...new Set(request.ids)]) {
    const flag = listable(flags, id);
    if (!flag) {
      skipped.push({ id, reason: 'Not found' });
      continue;
    }
    const next =
      request.action === 'set' ? tags : request.action === 'add' ? [...new Set([...flag.tags, ...tags])] : flag.tags.filter((tag) => !tags.includes(tag));
    if (next.length === flag.tags.length && next.every((tag, i) => tag === flag.tags[i])) {
      updated.push({ id, tags: flag.tags });
      continue;
    }
    try {
      // Evaluation tags must stay a subset of the tags: a removed tag leaves them too.
      const evaluationTags = flag.evaluation_tags.filter((tag) => next.includes(tag));
      const after = await updateFlagById(deps, { ...who, flagId: id, body: { tags: next, evaluation_tags: evaluationTags }, ifMatch: null });
      updated.push({ id, tags: after.tags });
    } catch (error) {
      skipped.push({ id, reason: refusal(error) });
    }
  }
  return { updated, skipped };
}

/** The list's filters a bulk delete may use (PostHog refuses others, so a typo never widens it). */
export const BULK_DELETE_FILTER_KEYS = [
  'active', 'archived', 'created_by_id', 'evaluation_runtime', 'excluded_properties', 'has_evaluation_tags', 'key', 'search', 'tags', 'type',
] as const;

function listQueryOf(filters: Record<string, unknown>): FlagListQuery {
  const unknown = Object.keys(filters).filter((key) => !(BULK_DELETE_FILTER_KEYS as readonly string[]).includes(key)).sort();
  if (unknown.length > 0) throw validationError(`Unknown filter keys: ${unknown.join(', ')}`, 'filters');
  const query: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined || value === null) continue;
    if (key === 'created_by_id') {
      if (typeof value !== 'number' || !Number.isInteger(value)) throw validationError('A valid integer is required.', 'filters__created_by_id');
      query[key] = value;
    } else query[key] = Array.isArray(value) ? JSON.stringify(value) : String(value);
  }
  return query as FlagListQuery;
}

type RolloutState = 'fully_rolled_out' | 'not_rolled_out' | 'partial';

/** How far the flag was rolled out when it was deleted (PostHog reports it with each deleted flag). */
function rolloutOf(flag: FlagRecord): { rollout_state: RolloutState; active_variant: string | null } {
  const groups = flag.filters.groups ?? [];
  const variants = flag.filters.multivariate?.variants ?? [];
  if (!flag.active || groups.length === 0 || groups.every((g) => g.rollout_percentage === 0)) {
    return { rollout_state: 'not_rolled_out', active_variant: null };
  }
  const everyone = groups.some((g) => (g.properties ?? []).length === 0 && (g.rollout_percentage ?? 100) === 100);
  if (!everyone) return { rollout_state: 'partial', active_variant: null };
  if (variants.length === 0) return { rollout_state: 'fully_rolled_out', active_variant: null };
  const full = variants.find((v) => v.rollout_percentage === 100);
  return full ? { rollout_state: 'fully_rolled_out', active_variant: full.key } : { rollout_state: 'partial', active_variant: null };
}

export interface DeleteRequest {
  filters?: Record<string, unknown>;
  ids?: unknown[];
}

export async function bulkDelete(deps: FlagWriteDeps, who: Actor, request: DeleteRequest) {
  const hasFilters = request.filters !== undefined && Object.keys(request.filters).length > 0;
  const hasIds = request.ids !== undefined && request.ids.length > 0;
  if (hasFilters && hasIds) throw validationError('Provide either filters or ids, not both');
  if (!hasFilters && !hasIds) throw validationError('Must provide either filters or ids');
  const flags = await deps.flagCache.project(who.projectId);
  const errors: { id: unknown; key?: string; reason: string }[] = [];
  let targets: FlagRecord[];
  if (hasFilters) {
    const filter = decodeListQuery(listQueryOf(request.filters ?? {}));
    const now = new Date();
    targets = flags.all().map((flag) => flag.record).filter((record) => matchesListFilter(record, filter, now));
  } else {
    targets = [];
    for (const raw of request.ids ?? []) {
      const id = typeof raw === 'number' && Number.isInteger(raw) ? raw : typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : null;
      if (id === null) {
        errors.push({ id: raw, reason: 'Invalid flag ID format' });
        continue;
      }
      const flag = listable(flags, id);
      if (flag) targets.push(flag);
      else errors.push({ id, reason: 'Flag not found' });
    }
  }
  const deleted: { id: number; key: string; rollout_state: RolloutState; active_variant: string | null }[] = [];
  for (const flag of targets) {
    try {
      await updateFlagById(deps, { ...who, flagId: flag.id, body: { deleted: true }, ifMatch: null });
      deleted.push({ id: flag.id, key: flag.key, ...rolloutOf(flag) });
    } catch (error) {
      errors.push({ id: flag.id, key: flag.key, reason: refusal(error) });
    }
  }
  return { deleted, errors };
}
