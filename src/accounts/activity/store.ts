import type { ReadHandle } from '../../db/pool.ts';
import { unitRunningOn, type UnitOfWork, type WriteTx } from '../../db/unit-of-work.ts';
import { ExtensionPoint } from '../../kernel/extensions.ts';
import { userSummarySql, type UserSummary } from '../users/user-summary.ts';
import type { ActivityDetail, ActivityEntry } from './schemas.ts';

export type { ActivityDetail, ActivityEntry, ActivityUser } from './schemas.ts';

export interface NewActivity {
  projectId: number;
  scope: string;
  itemId: string;
  activity: string;
  userId: number | null;
  detail: ActivityDetail;
  /** The changed object as the API serves it, when the writer holds it (a follower then need not read it back). */
  subject?: () => Record<string, unknown>;
}

/** Rows a follower writes in the statement that writes the entries: a CTE body, told how many rows it wrote. */
export interface FoldedFollow {
  cte: string;
  written: (rows: number) => void;
}

/**
 * Told of every activity entry inside its change's transaction, so an area can write a row of its
 * own beside it (the webhooks outbox): the change, its entry and that row commit or roll back together.
 * `follow` runs after an entry written on its own; `fold`, when given, instead answers the rows of
 * several entries as a CTE of the statement that writes them (`activityInsertCtes`), its parameters
 * appended to `params`, or null when it has none to write.
 */
export interface ActivityFollower {
  follow: (unit: UnitOfWork, entry: NewActivity) => Promise<void>;
  fold?: (unit: UnitOfWork, entries: readonly NewActivity[], params: unknown[]) => Promise<FoldedFollow | null>;
}

export const ACTIVITY_FOLLOWERS = new ExtensionPoint<ActivityFollower>('activity followers');

/** Must run on the same client (transaction) as the change it records. */
export async function recordActivity(db: WriteTx, entry: NewActivity): Promise<void> {
  await db.query(
    `INSERT INTO activity_log (project_id, scope, item_id, activity, user_id, is_system, detail)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [entry.projectId, entry.scope, entry.itemId, entry.activity, entry.userId, entry.userId === null, entry.detail],
  );
  const unit = unitRunningOn(db);
  if (unit) await followActivity(unit, entry);
}

/** The followers of `entry`, written on its own just now. */
async function followActivity(unit: UnitOfWork, entry: NewActivity): Promise<void> {
  for (const follower of unit.contributions(ACTIVITY_FOLLOWERS)) await follower.follow(unit, entry);
}

/**
 * The CTE bodies of one statement writing `entries` and their followers' rows, for a writer that
 * folds its entries into a statement of its own (the flags writer's last one); their parameters are
 * appended to `params`. A follower that cannot fold runs now, on the same transaction. Each CTE
 * answers a row per row written; the caller tells `written` how many it wrote.
 */
export async function activityInsertCtes(unit: UnitOfWork, entries: readonly NewActivity[], params: unknown[]): Promise<FoldedFollow[]> {
  const ctes: FoldedFollow[] = [];
  if (entries.length === 0) return ctes;
  for (const follower of unit.contributions(ACTIVITY_FOLLOWERS)) {
    if (!follower.fold) {
      for (const entry of entries) await follower.follow(unit, entry);
      continue;
    }
    const folded = await follower.fold(unit, entries, params);
    if (folded !== null) ctes.push(folded);
  }
  const at = (value: unknown) => `$${params.push(value)}`;
  const columns = [
    at(entries.map((e) => e.projectId)),
    at(entries.map((e) => e.scope)),
    at(entries.map((e) => e.itemId)),
    at(entries.map((e) => e.activity)),
    at(entries.map((e) => e.userId)),
    at(entries.map((e) => JSON.stringify(e.detail))),
  ];
  ctes.unshift({
    cte: `INSERT INTO activity_log (project_id, scope, item_id, activity, user_id, is_system, detail)
       SELECT e.project_id, e.scope, e.item_id, e.activity, e.user_id, e.user_id IS NULL, e.detail::jsonb
         FROM unnest(${columns[0]}::int[], ${columns[1]}::text[], ${columns[2]}::text[], ${columns[3]}::text[], ${columns[4]}::int[], ${columns[5]}::text[])
              WITH ORDINALITY AS e(project_id, scope, item_id, activity, user_id, detail, n)
        ORDER BY e.n
       RETURNING 1`,
    written: () => {},
  });
  return ctes;
}

export interface ActivityFilter {
  projectId: number;
  scope: string;
  itemId?: string;
  limit: number;
  offset: number;
}

export async function listActivity(db: ReadHandle, filter: ActivityFilter): Promise<{ total: number; entries: ActivityEntry[] }> {
  const params: unknown[] = [filter.projectId, filter.scope];
  let where = 'a.project_id = $1 AND a.scope = $2';
  if (filter.itemId !== undefined) {
    params.push(filter.itemId);
    where += ` AND a.item_id = $${params.length}`;
  }
  const total = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM activity_log a WHERE ${where}`, params);
  params.push(filter.limit, filter.offset);
  const { rows } = await db.query<ActivityEntry & { user: UserSummary | null }>(
    `SELECT a.id, a.activity, a.scope, a.item_id, a.detail, a.is_system,
            to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at,
            ${userSummarySql('u')} AS user
       FROM activity_log a LEFT JOIN users u ON u.id = a.user_id
      WHERE ${where}
      ORDER BY a.created_at DESC, a.id DESC
      LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  );
  const entries = rows.map((row) => ({
    ...row,
    user: row.user ?? { first_name: 'System' as const, email: null, is_system: true as const },
  }));
  return { total: total.rows[0].n, entries };
}
