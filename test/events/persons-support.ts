import { randomUUID } from 'node:crypto';
import { resolvePersons } from '../../src/events/persons/resolve.ts';
import type { IncomingEvent } from '../../src/events/types.ts';
import { insertProject } from '../../src/accounts/projects/store.ts';
import type { TestApp } from '../helpers/app.ts';
import { inUnit } from '../helpers/database.ts';

let clock = Date.UTC(2024, 0, 1);

/** An event as the pipeline hands it over; timestamps go up one second per event made. */
export function event(name: string, distinctId: string, properties: Record<string, unknown> = {}, timestamp?: Date): IncomingEvent {
  clock += 1000;
  return { uuid: randomUUID(), event: name, distinctId, properties, timestamp: timestamp ?? new Date(clock) };
}

/** A distinct id no other test uses. */
export function fresh(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}

/** Resolves one batch in its own committed transaction. */
export function resolve(t: TestApp, events: IncomingEvent[], projectId = t.projectId): Promise<Map<string, string>> {
  return inUnit(t.db.pool, (tx) => resolvePersons(tx, projectId, events));
}

export interface StoredPerson {
  id: number;
  uuid: string;
  properties: Record<string, unknown>;
  is_identified: boolean;
  created_at: Date;
  version: number;
  distinct_ids: string[];
}

/** The stored person of `distinctId`, or null. */
export async function personOf(t: TestApp, distinctId: string, projectId = t.projectId): Promise<StoredPerson | null> {
  const { rows } = await t.db.pool.query<StoredPerson>(
    `SELECT p.id, p.uuid, p.properties, p.is_identified, p.created_at, p.version,
            ARRAY(SELECT d2.distinct_id FROM person_distinct_ids d2 WHERE d2.person_id = p.id ORDER BY d2.seq) AS distinct_ids
       FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id
      WHERE d.project_id = $1 AND d.distinct_id = $2`,
    [projectId, distinctId],
  );
  return rows[0] ?? null;
}

export async function personCount(t: TestApp, projectId = t.projectId): Promise<number> {
  const { rows } = await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM persons WHERE project_id = $1', [projectId]);
  return rows[0].n;
}

export async function personExists(t: TestApp, id: number): Promise<boolean> {
  const { rows } = await t.db.pool.query('SELECT 1 FROM persons WHERE id = $1', [id]);
  return rows.length === 1;
}

/** A new project in the test app's organization (for group types, which are counted per project). */
export async function newProject(t: TestApp, name = 'Another'): Promise<number> {
  const { rows } = await t.db.pool.query<{ organization_id: string }>('SELECT organization_id FROM projects WHERE id = $1', [t.projectId]);
  const { project } = await inUnit(t.db.pool, (tx) => insertProject(tx, { organizationId: rows[0].organization_id, name }));
  return project.id;
}

export async function groupTypes(t: TestApp, projectId: number): Promise<Record<string, number>> {
  const { rows } = await t.db.pool.query<{ group_type: string; group_type_index: number }>(
    'SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = $1 ORDER BY group_type_index',
    [projectId],
  );
  return Object.fromEntries(rows.map((r) => [r.group_type, r.group_type_index]));
}
