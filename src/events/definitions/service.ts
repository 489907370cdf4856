import type { ReadHandle } from '../../db/pool.ts';
import type { UnitsOfWork } from '../../db/unit-of-work.ts';
import type { ProjectRef } from '../../accounts/auth/principal.ts';
import { ApiError, orNotFound, validationError } from '../../kernel/errors.ts';
import { applyVerification, normalizeTags } from '../taxonomy/fields.ts';
import { refuseNul, uuidOrNotFound } from '../taxonomy/params.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import { recordDefinitionChanged, recordDefinitionCreated, recordDefinitionDeleted } from './activity.ts';
import { presentDefinition } from './present.ts';
import { DAY_MS } from '../../kernel/time.ts';
import type { CreateDefinitionBody, DefinitionMetrics, DefinitionVolume, EventDefinition, UpdateDefinitionBody } from './schemas.ts';
import {
  findDefinitionByName,
  definitionNameTaken,
  deleteDefinition,
  eventVolume,
  eventVolumeByDay,
  findDefinition,
  insertDefinition,
  isOrganizationMember,
  updateDefinition,
  userExists,
  type DefinitionRecord,
  type DefinitionValues,
} from './store.ts';
import { nameTaken } from '../taxonomy/errors.ts';

/** `owner` is a user id; the user must belong to the project's organization. */
async function checkOwner(db: ReadHandle, project: ProjectRef, owner: number | null | undefined): Promise<void> {
  if (owner === undefined || owner === null) return;
  if (!(await userExists(db, owner))) {
    throw validationError(`Invalid pk "${owner}" - object does not exist.`, 'owner', 'does_not_exist');
  }
  if (!(await isOrganizationMember(db, project.organizationId, owner))) {
    throw validationError('Owner must be a member of this organization', 'owner', 'invalid_input');
  }
}

/** The body's writable fields over `base`; verified/hidden by PostHog's rules. */
function applyBody(base: DefinitionValues, body: UpdateDefinitionBody, actorId: number, now: Date): DefinitionValues {
  refuseNul(body.description, 'description');
  refuseNul(body.primary_property, 'primary_property');
  for (const column of body.default_columns ?? []) refuseNul(column, 'default_columns');
  const next: DefinitionValues = { ...base };
  if (body.owner !== undefined) next.owner_id = body.owner;
  if (body.description !== undefined) next.description = body.description;
  if (body.tags !== undefined) next.tags = normalizeTags(body.tags);
  if (body.default_columns !== undefined) next.default_columns = body.default_columns;
  if (body.enforcement_mode !== undefined) next.enforcement_mode = body.enforcement_mode;
  if (body.primary_property !== undefined) next.primary_property = body.primary_property;
  return { ...next, ...applyVerification(next, body, actorId, now, 'An event') };
}

function valuesOf(row: DefinitionRecord): DefinitionValues {
  return {
    owner_id: row.owner_id,
    description: row.description,
    tags: row.tags,
    verified: row.verified,
    verified_at: row.verified_at,
    verified_by_id: row.verified_by_id,
    hidden: row.hidden,
    default_columns: row.default_columns,
    enforcement_mode: row.enforcement_mode,
    primary_property: row.primary_property,
  };
}

/** Creates the definition and its activity entry in one transaction; answers the new id. */
export async function createDefinition(units: UnitsOfWork, project: ProjectRef, actorId: number, body: CreateDefinitionBody): Promise<string> {
  const name = body.name.trim();
  if (name === '') throw validationError('This field may not be blank.', 'name', 'blank');
  refuseNul(name, 'name');
  const blank: DefinitionValues = {
    owner_id: null,
    description: '',
    tags: [],
    verified: false,
    verified_at: null,
    verified_by_id: null,
    hidden: false,
    default_columns: null,
    enforcement_mode: 'allow',
    primary_property: null,
  };
  const values = applyBody(blank, body, actorId, new Date());
  if (await definitionNameTaken(units.pool, project.id, name)) throw nameTaken(name);
  await checkOwner(units.pool, project, body.owner);
  try {
    return await units.run(async ({ client }) => {
      const id = await insertDefinition(client, project.id, name, values, actorId);
      const row = (await findDefinition(client, project.id, id)) as DefinitionRecord;
      await recordDefinitionCreated(client, row, actorId);
      return id;
    });
  } catch (error) {
    // Created meanwhile by another request or by ingestion.
    if (isUniqueViolation(error)) throw nameTaken(name);
    throw error;
  }
}

export async function getDefinition(db: ReadHandle, projectId: number, rawId: string): Promise<EventDefinition> {
  return presentDefinition(orNotFound(await findDefinition(db, projectId, uuidOrNotFound(rawId))));
}

/** `by_name/?name=`: the definition with exactly this name. */
export async function getDefinitionByName(db: ReadHandle, projectId: number, name: string | undefined): Promise<EventDefinition> {
  if (name === undefined || name === '') throw validationError("Query parameter 'name' is required", 'name', 'required');
  const row = await findDefinitionByName(db, projectId, name);
  if (!row) throw new ApiError(404, 'invalid_request', 'not_found', `Event definition with name '${name}' not found`);
  return presentDefinition(row);
}

export async function updateDefinitionById(
  units: UnitsOfWork,
  project: ProjectRef,
  rawId: string,
  actorId: number,
  body: UpdateDefinitionBody,
): Promise<EventDefinition> {
  const id = uuidOrNotFound(rawId);
  return units.run(async ({ client }) => {
    const before = orNotFound(await findDefinition(client, project.id, id, true));
    const values = applyBody(valuesOf(before), body, actorId, new Date());
    if (values.owner_id !== before.owner_id) await checkOwner(client, project, values.owner_id);
    await updateDefinition(client, id, values, actorId);
    const after = (await findDefinition(client, project.id, id)) as DefinitionRecord;
    await recordDefinitionChanged(client, before, after, actorId);
    return presentDefinition(after);
  });
}

/** Hard delete; its event_schemas links go with it (foreign-key cascade). */
export async function deleteDefinitionById(units: UnitsOfWork, projectId: number, rawId: string, actorId: number): Promise<void> {
  const id = uuidOrNotFound(rawId);
  await units.run(async ({ client }) => {
    const row = orNotFound(await findDefinition(client, projectId, id, true));
    await deleteDefinition(client, id);
    await recordDefinitionDeleted(client, row, actorId);
  });
}

/**
 * Real figures from the event store. `query_usage_30_day` is 0: PostHog counts how often the
 * event was viewed in insights, and Bellwether has no insights to count.
 */
export async function definitionMetrics(db: ReadHandle, projectId: number, rawId: string): Promise<DefinitionMetrics> {
  const row = orNotFound(await findDefinition(db, projectId, uuidOrNotFound(rawId)));
  const { volume, lastSeen } = await eventVolume(db, projectId, row.name);
  return { query_usage_30_day: 0, volume_30_day: volume, last_seen_at: (lastSeen ?? row.last_seen_at)?.toISOString() ?? null };
}

/** Events of the definition's name per UTC day over the last `days` days and today (Bellwether's own, for the console's chart). */
export async function definitionVolume(db: ReadHandle, projectId: number, rawId: string, days: number, now: Date = new Date()): Promise<DefinitionVolume> {
  const row = orNotFound(await findDefinition(db, projectId, uuidOrNotFound(rawId)));
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const from = new Date(today - days * DAY_MS);
  const counted = new Map((await eventVolumeByDay(db, projectId, row.name, from)).map((entry) => [entry.day, entry.count]));
  const dayList: string[] = [];
  for (let i = days; i >= 0; i--) dayList.push(new Date(today - i * DAY_MS).toISOString().slice(0, 10));
  const counts = dayList.map((day) => counted.get(day) ?? 0);
  return { days: dayList, counts, total: counts.reduce((sum, count) => sum + count, 0) };
}
