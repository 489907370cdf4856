import type { ReadHandle } from '../db/pool.ts';
import type { WriteTx } from '../db/unit-of-work.ts';
import { userSummarySql } from '../accounts/users/user-summary.ts';
import type { FeatureRecord, Stage } from './record.ts';

const COLUMNS = `e.id, e.project_id, e.feature_flag_id, e.name, e.description, e.stage, e.documentation_url, e.payload, e.created_at,
  ${userSummarySql('u')} AS created_by`;
const JOINS = 'LEFT JOIN users u ON u.id = e.created_by_id';

export async function listFeatures(db: ReadHandle, projectId: number, limit: number, offset: number): Promise<{ count: number; rows: FeatureRecord[] }> {
  const [count, page] = await Promise.all([
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM early_access_features WHERE project_id = $1', [projectId]),
    db.query<FeatureRecord>(`SELECT ${COLUMNS} FROM early_access_features e ${JOINS} WHERE e.project_id = $1 ORDER BY e.created_at DESC, e.id LIMIT $2 OFFSET $3`, [projectId, limit, offset]),
  ]);
  return { count: count.rows[0]?.n ?? 0, rows: page.rows };
}

/** The public list: the project's features in these stages, with their flag's key (null when none or deleted). */
export interface PublicFeatureRow {
  id: string;
  name: string;
  description: string;
  stage: Stage;
  documentation_url: string;
  payload: Record<string, unknown>;
  flag_key: string | null;
}

export async function featuresInStages(db: ReadHandle, projectId: number, stages: readonly string[]): Promise<PublicFeatureRow[]> {
  const { rows } = await db.query<PublicFeatureRow>(
    `SELECT e.id, e.name, e.description, e.stage, e.documentation_url, e.payload, f.key AS flag_key
       FROM early_access_features e LEFT JOIN feature_flags f ON f.id = e.feature_flag_id
      WHERE e.project_id = $1 AND e.stage = ANY($2::text[])
      ORDER BY e.created_at, e.id LIMIT 1000`,
    [projectId, stages],
  );
  return rows;
}

export async function findFeature(db: ReadHandle, projectId: number, id: string, forUpdate = false): Promise<FeatureRecord | null> {
  const { rows } = await db.query<FeatureRecord>(
    `SELECT ${COLUMNS} FROM early_access_features e ${JOINS} WHERE e.project_id = $1 AND e.id = $2${forUpdate ? ' FOR UPDATE OF e' : ''}`,
    [projectId, id],
  );
  return rows[0] ?? null;
}

export async function featureOfFlag(db: ReadHandle, flagId: number): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM early_access_features WHERE feature_flag_id = $1', [flagId]);
  return rows[0]?.id ?? null;
}

export interface FeatureValues {
  name: string;
  description: string;
  stage: Stage;
  documentation_url: string;
  payload: Record<string, unknown>;
}

export async function insertFeature(db: WriteTx, id: string, projectId: number, flagId: number | null, values: FeatureValues, userId: number): Promise<void> {
  await db.query(
    `INSERT INTO early_access_features (id, project_id, feature_flag_id, name, description, stage, documentation_url, payload, created_by_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [id, projectId, flagId, values.name, values.description, values.stage, values.documentation_url, JSON.stringify(values.payload), userId],
  );
}

export async function saveFeature(db: WriteTx, id: string, values: FeatureValues): Promise<void> {
  await db.query(
    'UPDATE early_access_features SET name = $2, description = $3, stage = $4, documentation_url = $5, payload = $6 WHERE id = $1',
    [id, values.name, values.description, values.stage, values.documentation_url, JSON.stringify(values.payload)],
  );
}

export async function deleteFeature(db: WriteTx, id: string): Promise<void> {
  await db.query('DELETE FROM early_access_features WHERE id = $1', [id]);
}

/** Persons of the project enrolled (the property true or "true") in the flag `flagKey`. */
export async function enrolledPersons(db: ReadHandle, projectId: number, property: string, limit: number): Promise<Array<{ id: string; distinct_id: string | null }>> {
  const { rows } = await db.query<{ id: string; distinct_id: string | null }>(
    `SELECT p.uuid::text AS id, (SELECT d.distinct_id FROM person_distinct_ids d WHERE d.person_id = p.id LIMIT 1) AS distinct_id
       FROM persons p WHERE p.project_id = $1 AND p.properties -> $2 IN ('true'::jsonb, '"true"'::jsonb)
      ORDER BY p.created_at DESC LIMIT $3`,
    [projectId, property, limit],
  );
  return rows;
}
