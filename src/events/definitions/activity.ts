import type { WriteTx } from '../../db/unit-of-work.ts';
import { changedFields, type Change } from '../../accounts/activity/changes.ts';
import { recordTaxonomyActivity } from '../taxonomy/activity.ts';
import type { DefinitionRecord } from './store.ts';

export const DEFINITION_ACTIVITY_SCOPE = 'EventDefinition';

const COMPARED_FIELDS = [
  'owner',
  'description',
  'tags',
  'verified',
  'hidden',
  'default_columns',
  'enforcement_mode',
  'primary_property',
] as const;

function comparable(row: DefinitionRecord): Record<(typeof COMPARED_FIELDS)[number], unknown> {
  return {
    owner: row.owner_id,
    description: row.description ?? '',
    tags: row.tags,
    verified: row.verified,
    hidden: row.hidden,
    default_columns: row.default_columns ?? [],
    enforcement_mode: row.enforcement_mode,
    primary_property: row.primary_property,
  };
}

/** PostHog's event-definition changes are all `changed`, old value to new. */
function changesBetween(before: DefinitionRecord, after: DefinitionRecord): Change[] {
  return changedFields(DEFINITION_ACTIVITY_SCOPE, comparable(before), comparable(after), COMPARED_FIELDS);
}

function record(db: WriteTx, row: DefinitionRecord, activity: string, changes: Change[], userId: number): Promise<void> {
  return recordTaxonomyActivity(db, DEFINITION_ACTIVITY_SCOPE, row, activity, changes, userId);
}

export async function recordDefinitionCreated(db: WriteTx, row: DefinitionRecord, userId: number): Promise<void> {
  await record(db, row, 'created', [{ type: DEFINITION_ACTIVITY_SCOPE, action: 'created', field: 'name', before: null, after: row.name }], userId);
}

/** Nothing is written when the save changed no value. */
export async function recordDefinitionChanged(db: WriteTx, before: DefinitionRecord, after: DefinitionRecord, userId: number): Promise<void> {
  const changes = changesBetween(before, after);
  if (changes.length > 0) await record(db, after, 'changed', changes, userId);
}

export async function recordDefinitionDeleted(db: WriteTx, row: DefinitionRecord, userId: number): Promise<void> {
  await record(
    db,
    row,
    'deleted',
    [
      { type: DEFINITION_ACTIVITY_SCOPE, action: 'deleted', field: 'name', before: row.name, after: null },
      { type: DEFINITION_ACTIVITY_SCOPE, action: 'deleted', field: 'tags', before: row.tags, after: null },
    ],
    userId,
  );
}
