import pg from 'pg';

/**
 * What the server's PostgreSQL connections were doing during a window, sampled from
 * pg_stat_activity every few ms: running (active, no wait event), waiting (by wait event:
 * Lock/transactionid = a row another transaction holds, IO/WALSync = the commit's fsync, …),
 * idle in transaction (the transaction waits on the server: its round trips and its own CPU),
 * idle. Averages are connections in that state at any moment (Little's law inside the database).
 */
export interface PgWaits {
  samples: number;
  /** Average number of the database's connections in each state over the window, largest first. */
  averageConnections: Record<string, number>;
}

const SAMPLE_EVERY_MS = 20;

export async function samplePgWaits(databaseUrl: string): Promise<() => Promise<PgWaits>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined); // the database may be dropped under it after a failure
  await client.connect();
  const totals = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await client.query<{ what: string; n: number }>(
        `SELECT CASE
                  WHEN state = 'active' AND wait_event IS NULL THEN 'running'
                  WHEN state = 'active' THEN 'waiting ' || wait_event_type || '/' || wait_event
                  ELSE coalesce(state, 'unknown')
                END AS what, count(*)::int AS n
           FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
          GROUP BY 1`,
      );
      samples += 1;
      for (const row of rows) totals.set(row.what, (totals.get(row.what) ?? 0) + row.n);
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_EVERY_MS));
    }
  })().catch(() => undefined); // a failed sample ends the sampling; the samples so far still count
  return async () => {
    running = false;
    await loop;
    await client.end().catch(() => undefined);
    const averageConnections: Record<string, number> = {};
    for (const [what, n] of [...totals].sort((a, b) => b[1] - a[1])) {
      averageConnections[what] = Math.round((n / Math.max(samples, 1)) * 100) / 100;
    }
    return { samples, averageConnections };
  };
}

/** "2.1 running · 1.3 idle in transaction · 0.8 waiting Lock/transactionid …" (states above 0.05). */
export function describePgWaits(waits: PgWaits | null): string {
  if (!waits || waits.samples === 0) return 'not sampled';
  const parts = Object.entries(waits.averageConnections)
    .filter(([what, n]) => n >= 0.05 && what !== 'idle')
    .map(([what, n]) => `${n} ${what}`);
  return parts.length ? parts.join(' · ') : 'all idle';
}
