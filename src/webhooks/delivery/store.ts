/** SQL of the delivery worker: claim due deliveries, record each attempt, forget old ones. */
import type { WriteTx } from '../../db/unit-of-work.ts';
import type { ReadHandle } from '../../db/pool.ts';
import type { DeliveryRow } from '../outbox.ts';

export interface ClaimedDelivery extends DeliveryRow {
  url: string;
  format: 'json' | 'slack';
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

export interface ClaimLimits {
  /** At most this many rows in all. */
  limit: number;
  /** At most this many in flight to one endpoint, across every process. */
  perEndpoint: number;
  /** How long a claimed attempt is reserved: a process that dies mid-attempt leaves it due again after this. */
  leaseMs: number;
}

/**
 * Claims due deliveries: locks the endpoints that have some (skipping those another process is
 * claiming for), counts what is already in flight to each, and reserves the oldest due rows up to
 * the endpoint's room. Committed at once, so the reservation outlives this process only for the lease.
 * The lock is NO KEY UPDATE: every write adding an outbox row holds KEY SHARE on its endpoint (the
 * foreign key) until it commits, and FOR UPDATE would skip an endpoint as long as changes keep coming.
 */
export async function claimDue(db: WriteTx, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query<ClaimedDelivery>(
    `WITH locked AS (
       SELECT e.id FROM webhook_endpoints e
        WHERE e.enabled
          AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= now())
        ORDER BY random()
        LIMIT 50
        FOR NO KEY UPDATE OF e SKIP LOCKED
     ), picked AS (
       SELECT due.id FROM locked l
        CROSS JOIN LATERAL (
          SELECT d.id FROM webhook_deliveries d
           WHERE d.endpoint_id = l.id AND d.status = 'pending' AND d.next_attempt_at <= now()
           ORDER BY d.next_attempt_at, d.id
           LIMIT greatest(0, $1 - (SELECT count(*) FROM webhook_deliveries f
                                   WHERE f.endpoint_id = l.id AND f.status = 'pending' AND f.in_flight_until > now()))
        ) due
        LIMIT $2
     )
     UPDATE webhook_deliveries d
        SET attempts = d.attempts + 1, last_attempt_at = now(),
            in_flight_until = now() + $3 * interval '1 millisecond',
            next_attempt_at = now() + $3 * interval '1 millisecond'
       FROM picked, webhook_endpoints e
      WHERE d.id = picked.id AND e.id = d.endpoint_id
     RETURNING d.*, e.url, e.format, e.secret, e.previous_secret, e.previous_secret_expires_at`,
    [limits.perEndpoint, limits.limit, limits.leaseMs],
  );
  return rows.sort((a, b) => a.next_attempt_at.getTime() - b.next_attempt_at.getTime() || Number(a.id) - Number(b.id));
}

export interface AttemptRecord {
  status: number | null;
  body: string;
  durationMs: number;
  error: string | null;
}

export interface FinishedAttempt {
  row: Pick<DeliveryRow, 'id' | 'endpoint_id'>;
  attempt: AttemptRecord;
  /** A failure's wait before the next attempt; null: it was the last (or the attempt succeeded). */
  retryInMs: number | null;
}

/**
 * Records a batch of finished attempts in two or three statements: 2xx rows delivered, the others
 * due again after their wait or failed for good. An endpoint with a failure starts a failure streak;
 * one failing everything for `disableAfterMs` is disabled; one with a success ends its streak. An
 * endpoint's row is written only when its state changes.
 */
export async function recordAttempts(db: WriteTx, finished: readonly FinishedAttempt[], disableAfterMs: number): Promise<void> {
  const failed = finished.filter((each) => each.attempt.error !== null);
  const delivered = finished.filter((each) => each.attempt.error === null);
  if (failed.length > 0) {
    await db.query(
      `UPDATE webhook_deliveries d
          SET status = CASE WHEN r.retry IS NULL THEN 'failed' ELSE 'pending' END,
              finished_at = CASE WHEN r.retry IS NULL THEN now() END,
              next_attempt_at = CASE WHEN r.retry IS NULL THEN d.next_attempt_at ELSE now() + r.retry * interval '1 millisecond' END,
              in_flight_until = NULL, response_status = r.status, response_body = r.body, duration_ms = r.duration, error = r.error
         FROM unnest($1::bigint[], $2::int[], $3::text[], $4::int[], $5::bigint[], $6::text[]) AS r(id, status, body, duration, retry, error)
        WHERE d.id = r.id`,
      [
        failed.map((each) => each.row.id),
        failed.map((each) => each.attempt.status),
        failed.map((each) => each.attempt.body),
        failed.map((each) => each.attempt.durationMs),
        failed.map((each) => each.retryInMs),
        failed.map((each) => each.attempt.error),
      ],
    );
    await db.query(
      `UPDATE webhook_endpoints
          SET failing_since = coalesce(failing_since, now()),
              enabled = enabled AND NOT coalesce(failing_since < now() - $2 * interval '1 millisecond', false),
              disabled_reason = CASE WHEN enabled AND failing_since < now() - $2 * interval '1 millisecond' THEN 'failing' ELSE disabled_reason END,
              disabled_at = CASE WHEN enabled AND failing_since < now() - $2 * interval '1 millisecond' THEN now() ELSE disabled_at END
        WHERE id = ANY($1::uuid[]) AND (failing_since IS NULL OR (enabled AND failing_since < now() - $2 * interval '1 millisecond'))`,
      [[...new Set(failed.map((each) => each.row.endpoint_id))], disableAfterMs],
    );
  }
  if (delivered.length > 0) {
    await db.query(
      `UPDATE webhook_deliveries d
          SET status = 'delivered', finished_at = now(), in_flight_until = NULL,
              response_status = r.status, response_body = r.body, duration_ms = r.duration, error = NULL
         FROM unnest($1::bigint[], $2::int[], $3::text[], $4::int[]) AS r(id, status, body, duration)
        WHERE d.id = r.id`,
      [delivered.map((each) => each.row.id), delivered.map((each) => each.attempt.status), delivered.map((each) => each.attempt.body), delivered.map((each) => each.attempt.durationMs)],
    );
    await db.query('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ANY($1::uuid[]) AND failing_since IS NOT NULL', [
      [...new Set(delivered.map((each) => each.row.endpoint_id))],
    ]);
  }
}

/** Delivered and failed rows older than `keepMs` go, a bounded batch at a time; answers how many went. */
export async function forgetFinished(db: WriteTx, keepMs: number, batch = 5000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND finished_at < now() - $1 * interval '1 millisecond' LIMIT $2)`,
    [keepMs, batch],
  );
  return rowCount ?? 0;
}

/** Persons (or distinct ids without one) the flag was evaluated for in the last 24 h; the Slack sentence quotes it. */
export async function personsServed(db: ReadHandle, projectId: number, flagKey: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(DISTINCT coalesce(person_id::text, distinct_id))::int AS n FROM events
      WHERE project_id = $1 AND event = '$feature_flag_called' AND properties->>'$feature_flag' = $2
        AND timestamp > now() - interval '24 hours'`,
    [projectId, flagKey],
  );
  return rows[0].n;
}
