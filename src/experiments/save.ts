/** The one way an experiment row is written: the row, its activity entry, its ingestion-time state and its change notice, in one unit of work. */
import { jsonEqual } from '../accounts/activity/changes.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { flagLinksChanged } from '../flags/linked.ts';
import type { ExperimentDeps } from './deps.ts';
import { recordExperimentActivity } from './activity.ts';
import { rebuildState } from './exposure/rebuild.ts';
import { clearState } from './exposure/state-store.ts';
import { withFingerprints } from './fields.ts';
import type { ExperimentRecord, ExperimentValues } from './record.ts';
import { insertExperiment, updateExperiment } from './store.ts';

/** The fields that decide what the stored exposures and aggregates mean. */
const STATE_FIELDS = ['start_date', 'end_date', 'exposure_criteria', 'metrics', 'metrics_secondary', 'excluded_variants', 'deleted'] as const;

function stateChanged(before: ExperimentValues, after: ExperimentValues): boolean {
  return STATE_FIELDS.some((field) => {
    const a = before[field];
    const b = after[field];
    if (a instanceof Date || b instanceof Date) return (a as Date | null)?.getTime() !== (b as Date | null)?.getTime();
    return !jsonEqual(a, b);
  });
}

/** What an experiment write tells: the change notice, and the flag whose `experiment_set` moved. */
type SaveDeps = Pick<ExperimentDeps, 'bus' | 'flagCache'>;

export async function insertNewExperiment(deps: SaveDeps, unit: UnitOfWork, projectId: number, userId: number, values: ExperimentValues): Promise<ExperimentRecord> {
  const record = await insertExperiment(unit.client, projectId, userId, withFingerprints(values));
  await recordExperimentActivity(unit.client, null, record, userId);
  if (record.start_date !== null) await rebuildState(unit.client, projectId, record.id);
  await flagLinksChanged(deps, unit, projectId, record.feature_flag_id);
  await deps.bus.publish(unit, { kind: 'experiment', projectId, id: record.id });
  return record;
}

/**
 * Writes `values` over `before` (locked by the caller). When the change alters what the state
 * means, the state is rebuilt from the stored events (or cleared for a draft) in the same unit;
 * `flagVariantsChanged`: the flag's variant keys moved as well.
 */
export async function saveExperiment(
  deps: SaveDeps,
  unit: UnitOfWork,
  before: ExperimentRecord,
  values: ExperimentValues,
  userId: number | null,
  flagVariantsChanged = false,
): Promise<ExperimentRecord> {
  const next = withFingerprints(values);
  const rebuild = flagVariantsChanged || stateChanged(before, next);
  const after = await updateExperiment(unit.client, before.id, next, rebuild);
  await recordExperimentActivity(unit.client, before, after, userId);
  if (rebuild) {
    if (after.start_date === null || after.deleted) await clearState(unit.client, after.id);
    else await rebuildState(unit.client, after.project_id, after.id);
  }
  if (before.deleted !== after.deleted) await flagLinksChanged(deps, unit, after.project_id, after.feature_flag_id);
  // Ingestion's list of launched experiments follows experiments.
  await deps.bus.publish(unit, { kind: 'experiment', projectId: after.project_id, id: after.id });
  return after;
}
