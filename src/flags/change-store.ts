import { createHash } from 'node:crypto';
import type { WriteTx } from '../db/unit-of-work.ts';
import type { FoldedFollow } from '../accounts/activity/store.ts';
import type { ReadHandle } from '../db/pool.ts';
import { FLAG_COLUMNS, FLAG_JOINS } from './store.ts';
import type { FlagRecord } from './record.ts';

/** What a flag writing unit sends in its last statement beside the counter bump. */
export interface FoldedWrites {
  /** Rows written by CTEs of the statement (activity entries and their followers' rows), their parameters in `params`. */
  ctes: readonly FoldedFollow[];
  /** Change notices (payloads) to send on `channel`. */
  notices: { channel: string; payloads: readonly string[] } | null;
  params: unknown[];
}

/** The CTEs writing `folded`'s rows and sending its notices, and the columns counting them (a CTE not read is not run). */
function foldedParts(folded: FoldedWrites | undefined, params: unknown[]): { ctes: string[]; counts: string[] } {
  const ctes = (folded?.ctes ?? []).map((written, i) => `w${i} AS (${written.cte})`);
  const counts = ctes.map((_, i) => `(SELECT count(*)::int FROM w${i}) AS w${i}`);
  if (folded?.notices && folded.notices.payloads.length > 0) {
    const channel = `$${params.push(folded.notices.channel)}`;
    const payloads = `$${params.push(folded.notices.payloads)}`;
    ctes.push(`notices AS (SELECT pg_notify(${channel}, n) FROM unnest(${payloads}::text[]) AS n)`);
    counts.push('(SELECT count(*)::int FROM notices) AS notices');
  }
  return { ctes, counts };
}

function toldWritten(folded: FoldedWrites | undefined, row: Record<string, number>): void {
  folded?.ctes.forEach((written, i) => written.written(row[`w${i}`] ?? 0));
}

/**
 * Bumps the project's flag change counter once and stamps the flags written (`ids`) with the new
 * count; answers it. Runs last in the writing unit of work: the counter's row lock is held from here
 * to COMMIT only, and the counts commit in order. `folded`: the unit's deferred activity entries,
 * their followers' rows and its change notices, written by the same statement (one round trip).
 */
export async function bumpFlagChanges(db: WriteTx, projectId: number, ids: readonly number[], folded?: FoldedWrites): Promise<number> {
  const params: unknown[] = folded ? folded.params : [];
  const project = `$${params.push(projectId)}`;
  const flagIds = `$${params.push(ids)}`;
  const { ctes, counts } = foldedParts(folded, params);
  const { rows } = await db.query<Record<string, number>>(
    `WITH ${ctes.map((cte) => `${cte},\n`).join('')}bump AS (
       ${BUMP_SQL(project)}),
     stamp AS (
       UPDATE feature_flags f SET change_seq = bump.counter FROM bump
        WHERE f.project_id = ${project} AND f.id = ANY(${flagIds}::int[]))
     SELECT counter${counts.map((count) => `, ${count}`).join('')} FROM bump`,
    params,
  );
  const [row] = rows;
  toldWritten(folded, row);
  return row.counter;
}

/**
 * Writes `folded` (activity entries, their followers' rows, change notices) in one statement, for a
 * unit whose flags were all stamped by the statements that wrote them (creates): no counter to bump.
 */
export async function writeFolded(db: WriteTx, folded: FoldedWrites): Promise<void> {
  const { ctes, counts } = foldedParts(folded, folded.params);
  if (ctes.length === 0) return;
  const text = `WITH ${ctes.join(',\n')}\nSELECT ${counts.join(', ')}`;
  // Named by its text (a handful of shapes: which followers write rows), so each is parsed once per connection.
  const name = `bellwether-folded-${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
  const { rows } = await db.query<Record<string, number>>({ name, text, values: folded.params });
  toldWritten(folded, rows[0]);
}

/** The counter bump of project `project` (a parameter), as a CTE body answering the new `counter`. */
export const BUMP_SQL = (project: string) => `INSERT INTO flag_change_counters AS c (project_id, counter) VALUES (${project}, 1)
       ON CONFLICT (project_id) DO UPDATE SET counter = c.counter + 1
       RETURNING counter`;

/** The count of committed flag writes of each project asked about (0: never written). */
export async function flagChangeCounts(db: ReadHandle, projectIds: readonly number[]): Promise<Map<number, number>> {
  const { rows } = await db.query<{ project_id: number; counter: number }>(
    'SELECT project_id, counter FROM flag_change_counters WHERE project_id = ANY($1::int[])',
    [projectIds],
  );
  const counts = new Map<number, number>(projectIds.map((id) => [id, 0]));
  for (const row of rows) counts.set(row.project_id, row.counter);
  return counts;
}

/** The project's flags written after count `since` (deleted ones too). */
export async function flagsChangedSince(db: ReadHandle, projectId: number, since: number): Promise<FlagRecord[]> {
  const { rows } = await db.query<FlagRecord>(
    `SELECT ${FLAG_COLUMNS} FROM feature_flags f ${FLAG_JOINS} WHERE f.project_id = $1 AND f.change_seq > $2`,
    [projectId, since],
  );
  return rows;
}
