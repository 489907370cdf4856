import type { ReadHandle } from '../../db/pool.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';
import { generateSecret, hashSecret, maskSecret } from '../auth/keys.ts';
import type { KeyReach } from '../organizations/reach.ts';

/** An environment (PostHog's team): what flags, surveys, persons and events belong to. */
export interface ProjectRow {
  id: number;
  organization_id: string;
  /** The project (PostHog's) it is an environment of; the id of that project's first environment. */
  project_group_id: number;
  color: string | null;
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

const PROJECT_COLUMNS = 'id, organization_id, project_group_id, color, name, api_token, secret_token_mask, timezone, created_at, updated_at';
const columnsOf = (alias: string) => PROJECT_COLUMNS.split(', ').map((c) => `${alias}.${c}`).join(', ');

/**
 * Inserts an environment into `projectGroupId`; without it, the first environment of a new project
 * of the same name, which takes the environment's id (PostHog's rule; migration 040's trigger).
 */
export async function insertProject(
  db: WriteTx,
  input: { organizationId: string; name: string; id?: number; projectGroupId?: number; color?: string | null },
): Promise<CreatedProject> {
  const secretToken = generateSecret('phs_');
  const values = [
    input.organizationId,
    input.name,
    generateSecret('phc_'),
    hashSecret(secretToken),
    maskSecret(secretToken),
    input.projectGroupId ?? null,
    input.color ?? null,
  ];
  const sql =
    input.id === undefined
      ? `INSERT INTO projects (organization_id, name, api_token, secret_token_hash, secret_token_mask, project_group_id, color)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${PROJECT_COLUMNS}`
      : `INSERT INTO projects (id, organization_id, name, api_token, secret_token_hash, secret_token_mask, project_group_id, color)
         VALUES ($8, $1, $2, $3, $4, $5, $6, $7) RETURNING ${PROJECT_COLUMNS}`;
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

/** What a list holds: projects (each shown through its first environment, with the project's name), or environments. */
export interface ProjectListKind {
  kind: 'projects' | 'environments';
  organizationId?: string;
  projectGroupId?: number;
}

/**
 * The projects or environments a key reaches (its user's organizations, narrowed by the key's
 * scoping); all of them when `page` is absent. A project is reached when its first environment is.
 */
export async function listReachableProjects(
  db: ReadHandle,
  reach: KeyReach,
  filter: ProjectListKind,
  page?: { limit: number; offset: number },
): Promise<{ count: number; rows: ProjectRow[] }> {
  const projects = filter.kind === 'projects';
  const where = `($2::uuid[] IS NULL OR p.organization_id = ANY($2::uuid[]))
    AND ($3::int[] IS NULL OR p.id = ANY($3::int[]))
    AND ($4::uuid IS NULL OR p.organization_id = $4::uuid)
    AND ($5::int IS NULL OR p.project_group_id = $5::int)
    AND (NOT $6::boolean OR p.id = p.project_group_id)`;
  const params = [
    reach.userId,
    reach.organizations,
    reach.teams,
    filter.organizationId ?? null,
    filter.projectGroupId ?? null,
    projects,
  ];
  const from = `FROM projects p JOIN project_groups g ON g.id = p.project_group_id
    JOIN organization_memberships m ON m.organization_id = p.organization_id AND m.user_id = $1`;
  const columns = projects ? GROUP_VIEW_COLUMNS : columnsOf('p');
  if (!page) {
    const { rows } = await db.query<ProjectRow>(`SELECT ${columns} ${from} WHERE ${where} ORDER BY p.id`, params);
    return { count: rows.length, rows };
  }
  const count = await db.query<{ n: number }>(`SELECT count(*)::int AS n ${from} WHERE ${where}`, params);
  const { rows } = await db.query<ProjectRow>(
    `SELECT ${columns} ${from} WHERE ${where} ORDER BY p.id LIMIT $7 OFFSET $8`,
    [...params, page.limit, page.offset],
  );
  return { count: count.rows[0].n, rows };
}

/** A project seen through its first environment (`p`, joined to its group `g`): the project's name and dates, the environment's tokens. */
const GROUP_VIEW_COLUMNS = columnsOf('p')
  .replace('p.name', 'g.name')
  .replace('p.created_at', 'g.created_at')
  .replace('p.updated_at', 'GREATEST(g.updated_at, p.updated_at) AS updated_at');

/** The project whose first environment is `id`, or null (also when `id` is another environment). */
export async function findProjectView(db: ReadHandle, id: number): Promise<ProjectRow | null> {
  const { rows } = await db.query<ProjectRow>(
    `SELECT ${GROUP_VIEW_COLUMNS} FROM projects p JOIN project_groups g ON g.id = p.project_group_id
      WHERE p.id = $1 AND p.project_group_id = p.id`,
    [id],
  );
  return rows[0] ?? null;
}

export async function renameProjectGroup(db: WriteTx, id: number, name: string): Promise<void> {
  await db.query('UPDATE project_groups SET name = $2, updated_at = now() WHERE id = $1', [id, name]);
}

/**
 * Deletes a project and every environment of it (foreign keys cascade). Users whose current
 * environment was one of them move to an environment of another project of the organization.
 */
export async function deleteProjectGroup(db: WriteTx, group: { id: number; organizationId: string }): Promise<boolean> {
  await db.query(
    `UPDATE users SET current_project_id = (
       SELECT p.id FROM projects p WHERE p.organization_id = $2 AND p.project_group_id <> $1 ORDER BY p.id LIMIT 1)
      WHERE current_project_id IN (SELECT id FROM projects WHERE project_group_id = $1)`,
    [group.id, group.organizationId],
  );
  const { rowCount } = await db.query('DELETE FROM project_groups WHERE id = $1', [group.id]);
  return (rowCount ?? 0) > 0;
}

/** `color`: undefined keeps it, null clears it. */
export async function updateProject(
  db: WriteTx,
  id: number,
  changes: { name?: string; timezone?: string; color?: string | null },
): Promise<ProjectRow | null> {
  const { rows } = await db.query<ProjectRow>(
    `UPDATE projects SET name = COALESCE($2, name), timezone = COALESCE($3, timezone),
            color = CASE WHEN $4::boolean THEN $5 ELSE color END, updated_at = now()
      WHERE id = $1 RETURNING ${PROJECT_COLUMNS}`,
    [id, changes.name ?? null, changes.timezone ?? null, changes.color !== undefined, changes.color ?? null],
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
 * Deletes an environment; its data goes with it (foreign keys cascade). Users whose current
 * environment it was move to another environment of the same organization, when there is one.
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
