/**
 * PostHog's flag-side rule: when a flag's `filters` change (through the flags API, a scheduled
 * change, anything that writes the flag), every non-deleted experiment on the flag has its
 * `parameters.feature_flag_variants` replaced by the flag's variants, and its
 * `parameters.aggregation_group_type_index` set to the flag's (removed when the flag is per person).
 * It follows the flag's activity entry, so it commits or rolls back with the flag write. Running
 * experiments are not refused: PostHog refuses a variant change only through the experiment API.
 */
import type { NewActivity } from '../accounts/activity/store.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';

const FLAG_SCOPE = 'FeatureFlag';

interface FiltersLike {
  multivariate?: { variants?: unknown } | null;
  aggregation_group_type_index?: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The variants and group type of flag filters as an experiment's parameters keep them. */
export function experimentParametersOf(filters: FiltersLike): { variants: unknown[]; aggregationIndex: number | null } {
  const variants = isObject(filters.multivariate) && Array.isArray(filters.multivariate.variants) ? filters.multivariate.variants : [];
  const index = filters.aggregation_group_type_index;
  return { variants, aggregationIndex: typeof index === 'number' && Number.isInteger(index) ? index : null };
}

export async function syncExperimentsToFlag(unit: UnitOfWork, entry: NewActivity): Promise<void> {
  if (entry.scope !== FLAG_SCOPE || entry.activity !== 'updated') return;
  const change = (entry.detail.changes ?? []).find((each) => each.field === 'filters');
  if (!change || !isObject(change.after)) return;
  // The flag as written says which live experiments use it: none, no statement.
  const linked = entry.subject?.().experiment_set;
  if (Array.isArray(linked) && linked.length === 0) return;
  const { variants, aggregationIndex } = experimentParametersOf(change.after);
  // Only experiments whose stored variants or group type differ are written.
  await unit.client.query(
    `UPDATE experiments e
        SET parameters = CASE WHEN $4::int IS NULL THEN p.next - 'aggregation_group_type_index'::text
                              ELSE jsonb_set(p.next, '{aggregation_group_type_index}', to_jsonb($4::int)) END
       FROM (SELECT id, jsonb_set(coalesce(parameters, '{}'::jsonb), '{feature_flag_variants}', $3::jsonb) AS next
               FROM experiments WHERE project_id = $1 AND feature_flag_id = $2 AND NOT deleted) p
      WHERE e.id = p.id
        AND (e.parameters->'feature_flag_variants' IS DISTINCT FROM $3::jsonb
             OR e.parameters->'aggregation_group_type_index' IS DISTINCT FROM to_jsonb($4::int))`,
    [entry.projectId, Number(entry.itemId), JSON.stringify(variants), aggregationIndex],
  );
}
