import type { Queryable } from '../../db/pool.ts';
import { generateSecret, hashSecret, maskSecret } from '../auth/keys.ts';

export interface ProjectRow {
  id: number;
  organization_id: string;
  name: string;
  api_token: string;
  secret_token_mask: string;
  timezone: string;
  created_at: Date;
  updated_at: Date;
}

export interface CreatedProject {
  project: ProjectRow;
  /** The secret token in clear: only the creator ever sees it. */
  secretToken: string;
}

const PROJECT_COLUMNS = 'id, organization_id, name, api_token, secret_token_mask, timezone, created_at, updated_at';

export async function insertProject(
  db: Queryable,
  input: { organizationId: string; name: string; id?: number },
): Promise<CreatedProject> {
  const secretToken = generateSecret('phs_');
  const values = [input.organizationId, input.name, generateSecret('phc_'), hashSecret(secretToken), maskSecret(secretToken)];
  const sql =
    input.id === undefined
      ? `INSERT INTO projects (organization_id, name, api_token, secret_token_hash, secret_token_mask)
         VALUES ($1, $2, $3, $4, $5) RETURNING ${PROJECT_COLUMNS}`
      : `INSERT INTO projects (id, organization_id, name, api_token, secret_token_hash, secret_token_mask)
         VALUES ($6, $1, $2, $3, $4, $5) RETURNING ${PROJECT_COLUMNS}`;
  const { rows } = await db.query<ProjectRow>(sql, input.id === undefined ? values : [...values, input.id]);
  if (input.id !== undefined) {
    // An explicit id leaves the sequence behind; move it past every id in use.
    await db.query(`SELECT setval(pg_get_serial_sequence('projects', 'id'), (SELECT max(id) FROM projects))`);
  }
  return { project: rows[0], secretToken };
}

export async function findProject(db: Queryable, id: number): Promise<ProjectRow | null> {
  const { rows } = await db.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = $1`, [id]);
  return rows[0] ?? null;
}
