import type { ReadHandle } from '../../db/pool.ts';
import type { UnitsOfWork, WriteTx } from '../../db/unit-of-work.ts';
import { changedFields, type Change } from '../../accounts/activity/changes.ts';
import { recordTaxonomyActivity } from '../taxonomy/activity.ts';
import { orNotFound } from '../../kernel/errors.ts';
import { applyVerification, normalizeTags } from '../taxonomy/fields.ts';
import { refuseNul, uuidOrNotFound } from '../taxonomy/params.ts';
import { presentProperty } from './present.ts';
import type { PropertyDefinition, UpdatePropertyDefinitionBody } from './schemas.ts';
import { deleteProperty, findProperty, updateProperty, type PropertyRecord, type PropertyValues } from './store.ts';

export const PROPERTY_ACTIVITY_SCOPE = 'PropertyDefinition';
const COMPARED = ['description', 'tags', 'property_type', 'is_numerical', 'verified', 'hidden'] as const;

function valuesOf(row: PropertyRecord): PropertyValues {
  return {
    description: row.description,
    tags: row.tags,
    property_type: row.property_type,
    is_numerical: row.is_numerical,
    verified: row.verified,
    verified_at: row.verified_at,
    verified_by_id: row.verified_by_id,
    hidden: row.hidden,
  };
}

function changesBetween(before: PropertyValues, after: PropertyValues): Change[] {
  const norm = (v: PropertyValues) => ({ ...v, description: v.description ?? '' });
  return changedFields(PROPERTY_ACTIVITY_SCOPE, norm(before), norm(after), COMPARED);
}

function record(db: WriteTx, row: PropertyRecord, activity: string, changes: Change[], userId: number): Promise<void> {
  return recordTaxonomyActivity(db, PROPERTY_ACTIVITY_SCOPE, row, activity, changes, userId);
}

export async function getProperty(db: ReadHandle, projectId: number, rawId: string): Promise<PropertyDefinition> {
  return presentProperty(orNotFound(await findProperty(db, projectId, uuidOrNotFound(rawId))));
}

/**
 * description, tags, property_type (is_numerical follows it), verified and hidden (PostHog's
 * rules); updated_at/updated_by on every save; a `changed` activity entry when a value changed.
 */
export async function updatePropertyById(
  units: UnitsOfWork,
  projectId: number,
  rawId: string,
  actorId: number,
  body: UpdatePropertyDefinitionBody,
): Promise<PropertyDefinition> {
  const id = uuidOrNotFound(rawId);
  refuseNul(body.description, 'description');
  return units.run(async ({ client }) => {
    const before = orNotFound(await findProperty(client, projectId, id, true));
    const next = valuesOf(before);
    if (body.description !== undefined) next.description = body.description;
    if (body.tags !== undefined) next.tags = normalizeTags(body.tags);
    if (body.property_type !== undefined) {
      next.property_type = body.property_type;
      next.is_numerical = body.property_type === 'Numeric';
    }
    const values = { ...next, ...applyVerification(next, body, actorId, new Date(), 'A property') };
    await updateProperty(client, id, values, actorId);
    const changes = changesBetween(valuesOf(before), values);
    if (changes.length > 0) await record(client, before, 'changed', changes, actorId);
    return presentProperty((await findProperty(client, projectId, id)) as PropertyRecord);
  });
}

export async function deletePropertyById(units: UnitsOfWork, projectId: number, rawId: string, actorId: number): Promise<void> {
  const id = uuidOrNotFound(rawId);
  await units.run(async ({ client }) => {
    const row = orNotFound(await findProperty(client, projectId, id, true));
    await deleteProperty(client, row);
    await record(client, row, 'deleted', [{ type: PROPERTY_ACTIVITY_SCOPE, action: 'deleted', field: 'name', before: row.name, after: null }], actorId);
  });
}
