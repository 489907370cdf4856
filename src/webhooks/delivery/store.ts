/** SQL of the delivery worker: claim due deliveries, record each attempt, forget old ones. */
import type { WriteHandle, WriteTx } from '../../db/unit-of-work.ts';
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
  /** At most this many rows claimed for an endpoint this process knows nothing of (see `known`). */
  batch: number;
  /** Requests in flight to one endpoint at once: a row's lease covers the waves of this many before it. */
  concurrency: number;
  /** How long one attempt may take, lease included for recording it. */
  attemptMs: number;
  /**
   * Endpoints this process knows: the rows of each it holds claimed (when any, it alone may claim
   * more of them), and how many it takes of each at most, those held included.
   */
  known: ReadonlyMap<string, { held: number; batch: number }>;
}

/**
 * Claims due deliveries, round-robin across endpoints. It locks the endpoints that have some
 * (skipping those another process is claiming for). An endpoint whose rows are leased belongs to
 * the process holding them: only that one claims more of it (`held`), so the endpoint's concurrency
 * is one process's to keep, across every process. Per endpoint, two lanes share the room, oldest
 * due first in each: due retries and first attempts, taken in turn, so a backlog of first attempts
 * does not make a retry late and a flood of retries does not stall new messages. The rows come back
 * ranked (every endpoint's first, then every endpoint's second...) and cut at `limit`.
 *
 * Each row is leased for the attempts it may wait behind plus its own (its wave at the endpoint's
 * concurrency, each wave at most `attemptMs`), committed at once: a process that dies leaves its
 * rows due again when their leases run out (one statement: on the pool, no transaction around it). The lock is NO KEY UPDATE: every write adding an outbox
 * row holds KEY SHARE on its endpoint (the foreign key) until it commits, and FOR UPDATE would skip
 * an endpoint as long as changes keep coming.
 */
export async function claimDue(db: WriteHandle, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query<ClaimedDelivery & { rank: number }>({
    name: 'webhooks-claim-due',
    text: `WITH locked AS (
       SELECT e.id, coalesce(k.held, 0) AS held, coalesce(k.held, 0) > 0 AS mine, coalesce(k.batch, $3) AS batch FROM webhook_endpoints e
         LEFT JOIN unnest($1::uuid[], $2::int[], $7::int[]) AS k(id, held, batch) ON k.id = e.id
        WHERE e.enabled
          AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= now())
        ORDER BY random()
        LIMIT 50
        FOR NO KEY UPDATE OF e SKIP LOCKED
     ), room AS (
       SELECT l.id, l.held,
              CASE WHEN l.mine THEN greatest(0, l.batch - l.held)
                   WHEN EXISTS (SELECT 1 FROM webhook_deliveries f
                                 WHERE f.endpoint_id = l.id AND f.status = 'pending' AND f.in_flight_until > now()) THEN 0
                   ELSE l.batch END AS n
         FROM locked l
     ), picked AS (
       SELECT lane.id, r.held + lane.rank AS position, lane.rank FROM room r
        CROSS JOIN LATERAL (
          SELECT both_lanes.id, row_number() OVER (ORDER BY both_lanes.turn, both_lanes.retry DESC) AS rank FROM (
            (SELECT d.id, true AS retry, row_number() OVER (ORDER BY d.next_attempt_at, d.id) AS turn FROM (
               SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
                WHERE d.endpoint_id = r.id AND d.status = 'pending' AND d.attempts > 0 AND d.next_attempt_at <= now()
                ORDER BY d.next_attempt_at, d.id LIMIT r.n) d)
            UNION ALL
            (SELECT d.id, false AS retry, row_number() OVER (ORDER BY d.next_attempt_at, d.id) AS turn FROM (
               SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
                WHERE d.endpoint_id = r.id AND d.status = 'pending' AND d.attempts = 0 AND d.next_attempt_at <= now()
                ORDER BY d.next_attempt_at, d.id LIMIT r.n) d)
          ) both_lanes
          ORDER BY both_lanes.turn, both_lanes.retry DESC
          LIMIT r.n
        ) lane
        ORDER BY lane.rank
        LIMIT $4
     )
     UPDATE webhook_deliveries d
        SET attempts = d.attempts + 1, last_attempt_at = now(),
            in_flight_until = now() + (ceil(picked.position::numeric / $5) * $6 + 5000) * interval '1 millisecond',
            next_attempt_at = now() + (ceil(picked.position::numeric / $5) * $6 + 5000) * interval '1 millisecond'
       FROM picked, webhook_endpoints e
      WHERE d.id = picked.id AND e.id = d.endpoint_id
        -- Checked again on the row as it is now: another process's claim that committed after this
        -- statement's snapshot was taken leased the row (next attempt moved on), and it is theirs.
        AND d.status = 'pending' AND d.next_attempt_at <= now()
     RETURNING d.*, picked.rank, e.url, e.format, e.secret, e.previous_secret, e.previous_secret_expires_at`,
    values: [
      [...limits.known.keys()],
      [...limits.known.values()].map((each) => each.held),
      limits.batch,
      limits.limit,
      limits.concurrency,
      limits.attemptMs,
      [...limits.known.values()].map((each) => each.batch),
    ],
  });
  // In each endpoint's turn order (the lanes interleaved), which is the rank.
  return rows.sort((a, b) => a.rank - b.rank || a.endpoint_id.localeCompare(b.endpoint_id)).map(({ rank: _rank, ...row }) => row);
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
 * Records a batch of finished attempts in one statement: 2xx rows delivered, the others due again
 * after their wait or failed for good. An endpoint with a success in the batch ends its failure
 * streak; one with only failures starts one, and one failing everything for `disableAfterMs` is
 * disabled. An endpoint's row is written only when its state changes.
 */
export async function recordAttempts(db: WriteHandle, finished: readonly FinishedAttempt[], disableAfterMs: number): Promise<void> {
  if (finished.length === 0) return;
  await db.query(
    `WITH r AS (
       SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::int[], $4::text[], $5::int[], $6::bigint[], $7::text[])
         AS r(id, endpoint_id, status, body, duration, retry, error)
     ), attempts AS (
       UPDATE webhook_deliveries d
          SET status = CASE WHEN r.error IS NULL THEN 'delivered' WHEN r.retry IS NULL THEN 'failed' ELSE 'pending' END,
              finished_at = CASE WHEN r.error IS NULL OR r.retry IS NULL THEN now() END,
              next_attempt_at = CASE WHEN r.error IS NULL OR r.retry IS NULL THEN d.next_attempt_at ELSE now() + r.retry * interval '1 millisecond' END,
              in_flight_until = NULL, response_status = r.status, response_body = r.body, duration_ms = r.duration, error = r.error
         FROM r
        WHERE d.id = r.id
     ), outcome AS (
       SELECT endpoint_id, bool_or(error IS NULL) AS succeeded FROM r GROUP BY endpoint_id
     )
     UPDATE webhook_endpoints e
        SET failing_since = CASE WHEN o.succeeded THEN NULL ELSE coalesce(e.failing_since, now()) END,
            enabled = e.enabled AND (o.succeeded OR NOT coalesce(e.failing_since < now() - $8 * interval '1 millisecond', false)),
            disabled_reason = CASE WHEN NOT o.succeeded AND e.enabled AND e.failing_since < now() - $8 * interval '1 millisecond' THEN 'failing' ELSE e.disabled_reason END,
            disabled_at = CASE WHEN NOT o.succeeded AND e.enabled AND e.failing_since < now() - $8 * interval '1 millisecond' THEN now() ELSE e.disabled_at END
       FROM outcome o
      WHERE e.id = o.endpoint_id
        AND CASE WHEN o.succeeded THEN e.failing_since IS NOT NULL
                 ELSE e.failing_since IS NULL OR (e.enabled AND e.failing_since < now() - $8 * interval '1 millisecond') END`,
    [
      finished.map((each) => each.row.id),
      finished.map((each) => each.row.endpoint_id),
      finished.map((each) => each.attempt.status),
      finished.map((each) => each.attempt.body),
      finished.map((each) => each.attempt.durationMs),
      finished.map((each) => each.retryInMs),
      finished.map((each) => each.attempt.error),
      disableAfterMs,
    ],
  );
}

/**
 * Claimed rows whose attempt was not made (the process is closing): due again at once, their attempt
 * not counted, in their place in line (a first attempt from its creation, a retry from when it was claimed).
 */
export async function releaseClaimed(db: WriteTx, ids: readonly string[]): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries
        SET attempts = attempts - 1, in_flight_until = NULL,
            next_attempt_at = CASE WHEN attempts = 1 THEN created_at ELSE least(last_attempt_at, now()) END
      WHERE id = ANY($1::bigint[]) AND status = 'pending' AND in_flight_until IS NOT NULL`,
    [ids],
  );
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
