import { randomUUID } from 'node:crypto';
import type { ReadHandle } from '../../db/pool.ts';
import type { UnitsOfWork } from '../../db/unit-of-work.ts';
import { notFound, orNotFound, requiredField, validationError } from '../../kernel/errors.ts';
import { isUuid, refuseNul, uuidOrNotFound } from '../taxonomy/params.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import type { CreateEventSchemaBody, CreateGroupBody, EventSchema, PropertyGroup, SchemaPropertyInput, UpdateGroupBody } from './schemas.ts';
import {
  deleteEventSchema,
  deleteGroup,
  eventDefinitionInProject,
  findEventSchema,
  findGroup,
  findGroupRow,
  groupNameTaken,
  groupProperties,
  insertEventSchema,
  insertGroup,
  linkExists,
  replaceGroupProperties,
  updateGroup,
  type StoredProperty,
} from './store.ts';
import { groupNameTakenError, doesNotExist } from '../taxonomy/errors.ts';

function groupName(raw: string): string {
  const name = raw.trim();
  if (name === '') throw validationError('This field may not be blank.', 'name', 'blank');
  refuseNul(name, 'name');
  return name;
}

/**
 * The group's properties as they will be stored. Names are trimmed and must be unique in the
 * group; any other character is accepted (the code generators escape names). A known `id` keeps
 * its row (and created_at); an absent or unknown one makes a new property.
 */
export function planProperties(input: SchemaPropertyInput[], existing: StoredProperty[], now: Date): StoredProperty[] {
  const known = new Map(existing.map((p) => [p.id, p]));
  const names = new Set<string>();
  const usedIds = new Set<string>();
  return input.map((item, i) => {
    const attr = `properties__${i}__name`;
    const name = item.name.trim();
    if (name === '') throw validationError('This field may not be blank.', attr, 'blank');
    refuseNul(name, attr);
    refuseNul(item.description, `properties__${i}__description`);
    if (names.has(name)) throw validationError(`A property named '${name}' already exists in this group.`, attr, 'unique');
    names.add(name);
    const values = {
      name,
      property_type: item.property_type,
      is_required: item.is_required ?? false,
      is_optional_in_types: item.is_optional_in_types ?? false,
      description: item.description ?? '',
    };
    const previous = item.id !== undefined && !usedIds.has(item.id.toLowerCase()) ? known.get(item.id.toLowerCase()) : undefined;
    if (!previous) return { id: randomUUID(), ...values, created_at: now, updated_at: now };
    usedIds.add(previous.id);
    const changed = (Object.keys(values) as (keyof typeof values)[]).some((k) => previous[k] !== values[k]);
    return { id: previous.id, ...values, created_at: previous.created_at, updated_at: changed ? now : previous.updated_at };
  });
}

export async function createGroup(units: UnitsOfWork, projectId: number, actorId: number, body: CreateGroupBody): Promise<PropertyGroup> {
  const name = groupName(body.name);
  refuseNul(body.description, 'description');
  const properties = planProperties(body.properties ?? [], [], new Date());
  if (await groupNameTaken(units.pool, projectId, name, null)) throw groupNameTakenError();
  try {
    return await units.run(async ({ client }) => {
      const id = await insertGroup(client, projectId, name, body.description ?? '', actorId);
      await replaceGroupProperties(client, id, properties);
      return (await findGroup(client, projectId, id)) as PropertyGroup;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw groupNameTakenError();
    throw error;
  }
}

export async function getGroup(db: ReadHandle, projectId: number, rawId: string): Promise<PropertyGroup> {
  const group = orNotFound(await findGroup(db, projectId, uuidOrNotFound(rawId)));
  return group;
}

/** name, description and (when sent) the complete property list; updated_at on every save. */
export async function updateGroupById(units: UnitsOfWork, projectId: number, rawId: string, body: UpdateGroupBody): Promise<PropertyGroup> {
  const id = uuidOrNotFound(rawId);
  const name = body.name === undefined ? undefined : groupName(body.name);
  refuseNul(body.description, 'description');
  try {
    return await units.run(async ({ client }) => {
      const row = await findGroupRow(client, id, true);
      if (!row || row.project_id !== projectId) throw notFound();
      if (name !== undefined && name !== row.name && (await groupNameTaken(client, projectId, name, id))) throw groupNameTakenError();
      if (body.properties !== undefined) {
        await replaceGroupProperties(client, id, planProperties(body.properties, await groupProperties(client, id), new Date()));
      }
      await updateGroup(client, id, name, body.description === null ? '' : body.description);
      return (await findGroup(client, projectId, id)) as PropertyGroup;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw groupNameTakenError();
    throw error;
  }
}

/** Deletes the group, its properties and its links to events. */
export async function deleteGroupById(units: UnitsOfWork, projectId: number, rawId: string): Promise<void> {
  const id = uuidOrNotFound(rawId);
  await units.run(async ({ client }) => {
    const row = await findGroupRow(client, id, true);
    if (!row || row.project_id !== projectId) throw notFound();
    await deleteGroup(client, id);
  });
}

// --- event schemas -------------------------------------------------------------------------

export function eventDefinitionFilter(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  if (!isUuid(raw)) throw validationError('Must be a valid UUID.', 'event_definition', 'invalid_input');
  return raw.toLowerCase();
}

/** Links a property group to an event definition, both of this project, once. */
export async function createEventSchema(units: UnitsOfWork, projectId: number, body: CreateEventSchemaBody): Promise<EventSchema> {
  const groupId = body.property_group ?? body.property_group_id;
  if (groupId === undefined) throw requiredField('property_group');
  const groupAttr = body.property_group !== undefined ? 'property_group' : 'property_group_id';
  if (!isUuid(body.event_definition)) throw validationError('Must be a valid UUID.', 'event_definition', 'invalid_input');
  if (!isUuid(groupId)) throw validationError('Must be a valid UUID.', groupAttr, 'invalid_input');
  const definitionId = body.event_definition.toLowerCase();
  return units.run(async ({ client }) => {
    if (!(await eventDefinitionInProject(client, projectId, definitionId))) throw doesNotExist(body.event_definition, 'event_definition');
    const group = await findGroupRow(client, groupId.toLowerCase());
    if (!group) throw doesNotExist(groupId, groupAttr);
    if (group.project_id !== projectId) {
      throw validationError('Property group must belong to the same team as the event definition', groupAttr, 'invalid_input');
    }
    const duplicate = validationError(`Property group '${group.name}' is already added to this event schema`, groupAttr, 'unique');
    if (await linkExists(client, definitionId, group.id)) throw duplicate;
    try {
      const id = await insertEventSchema(client, definitionId, group.id);
      return (await findEventSchema(client, projectId, id)) as EventSchema;
    } catch (error) {
      // Linked meanwhile by a concurrent request.
      if (isUniqueViolation(error)) throw duplicate;
      throw error;
    }
  });
}

export async function getEventSchema(db: ReadHandle, projectId: number, rawId: string): Promise<EventSchema> {
  return orNotFound(await findEventSchema(db, projectId, uuidOrNotFound(rawId)));
}

export async function deleteEventSchemaById(units: UnitsOfWork, projectId: number, rawId: string): Promise<void> {
  const id = uuidOrNotFound(rawId);
  await units.run(async ({ client }) => {
    if (!(await findEventSchema(client, projectId, id))) throw notFound();
    await deleteEventSchema(client, id);
  });
}
