/** The activity log of experiments: created, updated (field changes), deleted, restored. */
import { diffChanges } from '../accounts/activity/changes.ts';
import { recordActivity } from '../accounts/activity/store.ts';
import type { WriteTx } from '../db/unit-of-work.ts';
import { EXPERIMENT_ACTIVITY_SCOPE, EXPERIMENT_VALUE_COLUMNS, type ExperimentRecord } from './record.ts';

const COMPARED = EXPERIMENT_VALUE_COLUMNS.filter((column) => column !== 'deleted');

function comparable(experiment: ExperimentRecord): Record<string, unknown> {
  const values = experiment as unknown as Record<string, unknown>;
  return Object.fromEntries(COMPARED.map((field) => [field, values[field] instanceof Date ? (values[field] as Date).toISOString() : values[field]]));
}

/** Records the write from `before` (null: created) to `after`; an update that changed nothing records nothing. */
export async function recordExperimentActivity(db: WriteTx, before: ExperimentRecord | null, after: ExperimentRecord, userId: number | null): Promise<void> {
  let activity: string;
  let changes = null;
  if (before === null) activity = 'created';
  else if (after.deleted && !before.deleted) activity = 'deleted';
  else if (!after.deleted && before.deleted) activity = 'restored';
  else {
    changes = diffChanges('Experiment', comparable(before), comparable(after), COMPARED);
    if (changes.length === 0) return;
    activity = 'updated';
  }
  await recordActivity(db, {
    projectId: after.project_id,
    scope: EXPERIMENT_ACTIVITY_SCOPE,
    itemId: String(after.id),
    activity,
    userId,
    detail: { changes, trigger: null, type: null, name: after.name, short_id: null },
  });
}
