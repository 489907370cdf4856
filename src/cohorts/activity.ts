import type { WriteTx } from '../db/unit-of-work.ts';
import { diffChanges, type Change } from '../accounts/activity/changes.ts';
import { recordActivity } from '../accounts/activity/store.ts';
import type { CohortRecord } from './store.ts';

export const COHORT_ACTIVITY_SCOPE = 'Cohort';

const COMPARED_FIELDS = ['name', 'description', 'filters', 'deleted', 'is_static'] as const;

function comparable(cohort: CohortRecord): Record<string, unknown> {
  return Object.fromEntries(COMPARED_FIELDS.map((field) => [field, cohort[field]]));
}

function activityName(before: CohortRecord, changes: Change[]): string {
  const deleted = changes.find((change) => change.field === 'deleted');
  if (deleted && deleted.after === true) return 'deleted';
  if (deleted && before.deleted) return 'restored';
  return 'updated';
}

/** One entry per change, on the change's own transaction (PostHog's cohort activities). */
export async function recordCohortActivity(
  db: WriteTx,
  input: { before: CohortRecord | null; after: CohortRecord; userId: number | null; activity?: string },
): Promise<void> {
  const { before, after } = input;
  let changes: Change[] = [];
  let activity = input.activity ?? 'created';
  if (!input.activity && before !== null) {
    changes = diffChanges('Cohort', comparable(before), comparable(after), COMPARED_FIELDS);
    if (changes.length === 0) return;
    activity = activityName(before, changes);
  }
  if (input.activity) changes = [{ type: 'Cohort', action: 'changed', field: 'people', before: null, after: null }];
  await recordActivity(db, {
    projectId: after.project_id,
    scope: COHORT_ACTIVITY_SCOPE,
    itemId: String(after.id),
    activity,
    userId: input.userId,
    detail: { changes, trigger: null, type: null, name: after.name, short_id: null },
  });
}
