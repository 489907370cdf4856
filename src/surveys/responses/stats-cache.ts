/**
 * Answers of global stats kept in memory, each with the fingerprint of what it was computed from
 * (read again on every request, one small query): the project's surveys in scope with the version
 * of their response totals (moved by every batch of their events), and the archived responses
 * when they are left out. A changed fingerprint recomputes, so an answer is never stale, in this
 * process or any other sharing the database, with no notices to miss.
 */
import type { ReadHandle } from '../../db/pool.ts';

const MAX_ENTRIES = 256;

export async function globalStatsFingerprint(db: ReadHandle, projectId: number, withArchives: boolean): Promise<string> {
  const { rows } = await db.query<{ fingerprint: string }>(
    `SELECT md5(coalesce(string_agg(s.id::text || ':' || coalesce(t.version, 0), ',' ORDER BY s.id), ''))
            || CASE WHEN $2::boolean
                    THEN (SELECT ':' || count(*) || ':' || coalesce(max(archived_at)::text, '')
                            FROM survey_response_archives WHERE project_id = $1)
                    ELSE '' END AS fingerprint
       FROM surveys s
       LEFT JOIN survey_response_totals t ON t.project_id = s.project_id AND t.survey_id = s.id
      WHERE s.project_id = $1 AND NOT s.archived`,
    [projectId, withArchives],
  );
  return rows[0].fingerprint;
}

export class StatsCache<T> {
  private readonly entries = new Map<string, { fingerprint: string; value: T }>();

  get(key: string, fingerprint: string): T | undefined {
    const entry = this.entries.get(key);
    return entry && entry.fingerprint === fingerprint ? entry.value : undefined;
  }

  set(key: string, fingerprint: string, value: T): void {
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { fingerprint, value });
  }
}
