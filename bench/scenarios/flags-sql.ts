import pg from 'pg';
import { posthogFilters, type SeedFlag } from './sdk-flags.ts';

/**
 * With the server running: project 1's flags replaced by `flags` in one INSERT … SELECT FROM
 * json_to_recordset (as the API stores them: the `sdk` scenario checks this on its API seed), then
 * ANALYZE (this PostgreSQL runs without autovacuum). The caller restarts the server so that its
 * caches read them.
 */
export async function replaceFlagsWithSql(databaseUrl: string, flags: SeedFlag[], projectId = 1): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const now = Date.now();
    const rows = flags.map((flag, i) => ({
      key: flag.key,
      name: flag.name,
      filters: posthogFilters(flag),
      active: flag.active,
      // One a minute, oldest first, as if created over time.
      created_at: new Date(now - (flags.length - i) * 60_000).toISOString(),
    }));
    await client.query('BEGIN');
    await client.query('DELETE FROM feature_flags WHERE project_id = $1', [projectId]);
    await client.query(
      `INSERT INTO feature_flags (project_id, key, name, filters, active, created_by_id, last_modified_by_id, created_at, updated_at,
                                  performed_rollback, should_create_usage_dashboard)
       SELECT $1, r.key, r.name, r.filters, r.active, u.id, u.id, r.created_at, r.created_at, false, false
         FROM json_to_recordset($2::json) AS r(key text, name text, filters jsonb, active boolean, created_at timestamptz)
         LEFT JOIN LATERAL (SELECT id FROM users ORDER BY id LIMIT 1) u ON true`,
      [projectId, JSON.stringify(rows)],
    );
    await client.query('COMMIT');
    await client.query('ANALYZE feature_flags');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}
