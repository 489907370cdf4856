import type { WriteTx } from '../../db/unit-of-work.ts';
import type { Change } from '../../accounts/activity/changes.ts';
import { recordActivity } from '../../accounts/activity/store.ts';

/** A taxonomy record as its activity names it. */
export interface TaxonomyItem {
  id: string;
  project_id: number;
  name: string;
}

/** Logs one activity of an event or property definition, named by the definition's name. */
export async function recordTaxonomyActivity(db: WriteTx, scope: string, row: TaxonomyItem, activity: string, changes: Change[], userId: number): Promise<void> {
  await recordActivity(db, {
    projectId: row.project_id,
    scope,
    itemId: row.id,
    activity,
    userId,
    detail: { changes, trigger: null, type: null, name: row.name, short_id: null },
  });
}
