import type { ReadHandle } from '../../db/pool.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';
import { generateSecret, hashSecret, maskSecret } from '../auth/keys.ts';
import type { KeyReach } from '../organizations/reach.ts';

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
const columnsOf = (alias: string) => PROJECT_COLUMNS.split(', ').map((c) => `${alias}.${c}`).join(', ');

export async function insertProject(
  db: WriteTx,
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

export async function findProject(db: ReadHandle, id: number): Promise<ProjectRow | null> {
  const { rows } = await db.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

/**
 * The projects a key reaches (its user's organizations, narrowed by the key's scoping),
 * optionally inside one organization; all of them when `page` is absent.
 */
export async function listReachableProjects(
  db: ReadHandle,
  reach: KeyReach,
  filter: { organizationId?: string } = {},
  page?: { limit: number; offset: number },
): Promise<{ count: number; rows: ProjectRow[] }> {
  const where = `($2::uuid[] IS NULL OR p.organization_id = ANY($2::uuid[]))
    AND ($3::int[] IS NULL OR p.id = ANY($3::int[]))
    AND ($4::uuid IS NULL OR p.organization_id = $4::uuid)`;
  const params = [reach.userId, reach.organizations, reach.teams, filter.organizationId ?? null];
  const from = `FROM projects p JOIN organization_memberships m ON m.organization_id = p.organization_id AND m.user_id = $1`;
  const columns = columnsOf('p');
  if (!page) {
    const { rows } = await db.query<ProjectRow>(`SELECT ${columns} ${from} WHERE ${where} ORDER BY p.id`, params);
    return { count: rows.length, rows };
  }
  const count = await db.query<{ n: number }>(`SELECT count(*)::int AS n ${from} WHERE ${where}`, params);
  const { rows } = await db.query<ProjectRow>(
    `SELECT ${columns} ${from} WHERE ${where} ORDER BY p.id LIMIT $5 OFFSET $6`,
    [...params, page.limit, page.offset],
  );
  return { count: count.rows[0].n, rows };
}

export async function updateProject(
  db: WriteTx,
  id: number,
  changes: { name?: string; timezone?: string },
): Promise<ProjectRow | null> {
  const { rows } = await db.query<ProjectRow>(
    `UPDATE projects SET name = COALESCE($2, name), timezone = COALESCE($3, timezone), updated_at = now()
      WHERE id = $1 RETURNING ${PROJECT_COLUMNS}`,
    [id, changes.name ?? null, changes.timezone ?? null],
  );
  return rows[0] ?? null;
}

/** A new public project token; the old one stops naming the project. Answers the old token too. */
export async function replaceProjectToken(db: WriteTx, id: number): Promise<{ project: ProjectRow; oldToken: string } | null> {
  const { rows } = await db.query<ProjectRow & { old_token: string }>(
    `UPDATE projects p SET api_token = $2, updated_at = now()
       FROM (SELECT id, api_token AS old_token FROM projects WHERE id = $1 FOR UPDATE) old
      WHERE p.id = old.id
      RETURNING ${columnsOf('p')}, old.old_token`,
    [id, generateSecret('phc_')],
  );
  if (!rows[0]) return null;
  const { old_token: oldToken, ...project } = rows[0];
  return { project, oldToken };
}

/** A new secret token (stored as its hash and mask); the old one stops working. Answers the new one in clear, once. */
export async function replaceSecretToken(db: WriteTx, id: number): Promise<{ project: ProjectRow; secretToken: string; oldMask: string } | null> {
  const secretToken = generateSecret('phs_');
  const { rows } = await db.query<ProjectRow & { old_mask: string }>(
    `UPDATE projects p SET secret_token_hash = $2, secret_token_mask = $3, updated_at = now()
       FROM (SELECT id, secret_token_mask AS old_mask FROM projects WHERE id = $1 FOR UPDATE) old
      WHERE p.id = old.id
      RETURNING ${columnsOf('p')}, old.old_mask`,
    [id, hashSecret(secretToken), maskSecret(secretToken)],
  );
  if (!rows[0]) return null;
  const { old_mask: oldMask, ...project } = rows[0];
  return { project, secretToken, oldMask };
}

/**
 * Deletes a project; its data goes with it (foreign keys cascade). Users whose current project
 * it was move to another project of the same organization, when there is one.
 * Run it inside a transaction.
 */
export async function deleteProject(db: WriteTx, project: { id: number; organizationId: string }): Promise<boolean> {
  await db.query(
    `UPDATE users SET current_project_id = (
       SELECT p.id FROM projects p WHERE p.organization_id = $2 AND p.id <> $1 ORDER BY p.id LIMIT 1)
      WHERE current_project_id = $1`,
    [project.id, project.organizationId],
  );
  const { rowCount } = await db.query('DELETE FROM projects WHERE id = $1', [project.id]);
  return (rowCount ?? 0) > 0;
}

/** The organization's first project (the one a new member starts in), or null. */
export async function firstProjectOf(db: ReadHandle, organizationId: string): Promise<number | null> {
  const { rows } = await db.query<{ id: number }>('SELECT id FROM projects WHERE organization_id = $1 ORDER BY id LIMIT 1', [organizationId]);
  return rows[0]?.id ?? null;
}
