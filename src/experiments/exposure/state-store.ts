/** SQL of the ingestion-time state: exposures and per-metric per-person aggregates. */
import type { WriteTx } from '../../db/unit-of-work.ts';
import { lockExperimentState } from './state-locks.ts';

export interface ExposureWrite {
  experimentId: number;
  personId: string;
  firstSeenAt: Date;
  firstVariant: string;
  multiple: boolean;
}

/** A person's exposure to an experiment, as stored. */
export interface StoredExposure {
  experimentId: number;
  personId: string;
  firstSeenAt: Date;
  firstVariant: string;
  multiple: boolean;
}

interface ExposureRow {
  experiment_id: number;
  person_id: string;
  first_seen_at: Date;
  first_variant: string;
  multiple: boolean;
}

const exposureOf = (row: ExposureRow): StoredExposure => ({
  experimentId: row.experiment_id,
  personId: row.person_id,
  firstSeenAt: row.first_seen_at,
  firstVariant: row.first_variant,
  multiple: row.multiple,
});

export const exposureKey = (experimentId: number, personId: string) => `${experimentId}:${personId}`;

/** A stored metric event of a person exposed now (or earlier than before), stamped in their newly exposed time. */
export interface EarlierEvent {
  experimentId: number;
  uuid: string;
  event: string;
  properties: Record<string, unknown>;
  timestamp: Date;
  personId: string;
}

export interface ExposeAndRead {
  /** The stored exposures of the pairs read, as they were before this statement. */
  before: Map<string, StoredExposure>;
  /** The exposures this statement inserted or changed, as written. */
  changed: StoredExposure[];
  /**
   * With `lookBack`, the stored events of persons exposed now, from their exposure on (up to their
   * former exposure when it moved earlier): events of earlier batches their exposure makes count.
   */
  earlier: EarlierEvent[];
  /** The stored aggregates of the (experiment, metric, person) keys read. */
  units: Map<string, MetricUnit>;
}

interface ExposeRow {
  part: 'before' | 'changed' | 'unit' | 'earlier';
  experiment_id: number;
  person_id: string;
  first_seen_at: Date | null;
  first_variant: string | null;
  multiple: boolean | null;
  metric_uuid: string | null;
  num: number | null;
  num_count: string | null;
  den: number | null;
  den_count: string | null;
  step: number | null;
  step_at: Date | null;
  event_uuid: string | null;
  event: string | null;
  properties: Record<string, unknown> | null;
  timestamp: Date | null;
}

/** Which stored events an exposure written now makes count (see `exposeAndRead`). */
export interface LookBack {
  /** The persons' distinct ids seen in the batch (a person without a stored row has no other). */
  distinctIds: Array<{ personId: string; distinctId: string }>;
  /** The event names the experiments' metrics read; null = any event. */
  eventNames: string[] | null;
}

/**
 * A batch's whole read and exposure write, in one statement (prepared once per connection: its
 * planning costs more than running it):
 * - the stored exposures of `pairs` as they were (the statement's snapshot);
 * - the exposures merged (the earliest time and its variant win; a second distinct variant marks the
 *   person as seen in several; a repeat that changes nothing writes nothing), as written;
 * - with `lookBack`, the stored events of each person whose exposure is new or moved earlier,
 *   stamped from the new exposure on and before the former one, found through their distinct ids
 *   (`events_distinct_id_time_idx`) and kept to those stored under the same person (the batch's own
 *   events are among them: the caller leaves those out);
 * - the stored aggregates of each pair's person already exposed, under every metric of its experiment.
 *
 * No row lock is taken to read: the caller holds the (experiment, person) locks of state-locks.ts
 * until it commits, so no other batch writes these persons' state meanwhile; a batch with a metric
 * event of the person takes the same lock after storing its events, so the events read here are
 * those of every batch that committed before, and a batch still waiting reads the exposure written here.
 */
export async function exposeAndRead(
  db: WriteTx,
  projectId: number,
  request: {
    pairs: Array<{ experimentId: number; personId: string }>;
    writes: ExposureWrite[];
    /** The experiments' metrics: the aggregates read are those of every pair's person under each metric of its experiment. */
    metrics: Array<{ experimentId: number; metricUuid: string }>;
    lookBack: LookBack | null;
  },
): Promise<ExposeAndRead> {
  const { pairs, writes, metrics, lookBack } = request;
  const result: ExposeAndRead = { before: new Map(), changed: [], earlier: [], units: new Map() };
  if (pairs.length === 0 && writes.length === 0) return result;
  const nothing =
    'NULL::text AS metric_uuid, NULL::float8 AS num, NULL::bigint AS num_count, NULL::float8 AS den, NULL::bigint AS den_count, NULL::int AS step, ' +
    'NULL::timestamptz AS step_at, NULL::uuid AS event_uuid, NULL::text AS event, NULL::jsonb AS properties, NULL::timestamptz AS "timestamp"';
  const { rows } = await db.query<ExposeRow>({
    name: 'bellwether-experiments-expose-and-read',
    text: `WITH pairs AS MATERIALIZED (
       SELECT DISTINCT * FROM unnest($1::int[], $2::uuid[]) AS k(experiment_id, person_id)
     ), before AS MATERIALIZED (
       SELECT x.experiment_id, x.person_id, x.first_seen_at, x.first_variant, x.multiple
         FROM pairs k
         CROSS JOIN LATERAL (
           SELECT x.* FROM experiment_exposures x WHERE x.experiment_id = k.experiment_id AND x.person_id = k.person_id OFFSET 0
         ) x
     ), up AS (
       INSERT INTO experiment_exposures AS x (experiment_id, person_id, first_seen_at, first_variant, multiple)
       SELECT * FROM unnest($3::int[], $4::uuid[], $5::timestamptz[], $6::text[], $7::boolean[])
       ON CONFLICT (experiment_id, person_id) DO UPDATE SET
         multiple = x.multiple OR excluded.multiple OR x.first_variant <> excluded.first_variant,
         first_variant = CASE WHEN excluded.first_seen_at < x.first_seen_at THEN excluded.first_variant ELSE x.first_variant END,
         first_seen_at = least(x.first_seen_at, excluded.first_seen_at)
       WHERE excluded.first_seen_at < x.first_seen_at OR x.first_variant <> excluded.first_variant OR (excluded.multiple AND NOT x.multiple)
       RETURNING experiment_id, person_id, first_seen_at, first_variant, multiple
     ), moved AS (
       SELECT up.experiment_id, up.person_id, up.first_seen_at AS since, b.first_seen_at AS until
         FROM up LEFT JOIN before b ON b.experiment_id = up.experiment_id AND b.person_id = up.person_id
        WHERE $8 AND (b.first_seen_at IS NULL OR up.first_seen_at < b.first_seen_at)
     ), earlier AS (
       SELECT m.experiment_id, e.person_id, e.uuid, e.event, e.properties, e.timestamp
         FROM moved m
         CROSS JOIN LATERAL (
           SELECT d.distinct_id FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id
            WHERE p.uuid = m.person_id AND p.project_id = $11
           UNION
           SELECT k.distinct_id FROM unnest($12::uuid[], $13::text[]) AS k(person_id, distinct_id) WHERE k.person_id = m.person_id
         ) ids
         -- OFFSET 0 keeps this a scan of the distinct id's index per person, whatever the plan's estimates.
         CROSS JOIN LATERAL (
           SELECT e.person_id, e.uuid, e.event, e.properties, e.timestamp FROM events e
            WHERE e.project_id = $11 AND e.distinct_id = ids.distinct_id AND e.timestamp >= m.since
              AND (m.until IS NULL OR e.timestamp < m.until) AND e.person_id = m.person_id
              AND ($14::text[] IS NULL OR e.event = ANY($14::text[]))
           OFFSET 0
         ) e
     )
     SELECT 'before' AS part, experiment_id, person_id, first_seen_at, first_variant, multiple, ${nothing} FROM before
     UNION ALL
     SELECT 'changed', experiment_id, person_id, first_seen_at, first_variant, multiple, ${nothing} FROM up
     UNION ALL
     SELECT 'unit', m.experiment_id, m.person_id, NULL, NULL, NULL, m.metric_uuid, m.num, m.num_count, m.den, m.den_count, m.step, m.step_at,
            NULL, NULL, NULL, NULL
       FROM before k -- a person has aggregates only once exposed
       JOIN unnest($9::int[], $10::text[]) AS metric(experiment_id, uuid) ON metric.experiment_id = k.experiment_id
       CROSS JOIN LATERAL (
         SELECT m.* FROM experiment_metric_units m
          WHERE m.experiment_id = k.experiment_id AND m.metric_uuid = metric.uuid AND m.person_id = k.person_id OFFSET 0
       ) m
     UNION ALL
     SELECT 'earlier', experiment_id, person_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, uuid, event, properties, timestamp
       FROM earlier`,
    values: [
      pairs.map((p) => p.experimentId),
      pairs.map((p) => p.personId),
      writes.map((r) => r.experimentId),
      writes.map((r) => r.personId),
      writes.map((r) => r.firstSeenAt),
      writes.map((r) => r.firstVariant),
      writes.map((r) => r.multiple),
      lookBack !== null,
      metrics.map((k) => k.experimentId),
      metrics.map((k) => k.metricUuid),
      projectId,
      (lookBack?.distinctIds ?? []).map((d) => d.personId),
      (lookBack?.distinctIds ?? []).map((d) => d.distinctId),
      lookBack?.eventNames ?? null,
    ],
  });
  for (const row of rows) {
    switch (row.part) {
      case 'before':
        result.before.set(exposureKey(row.experiment_id, row.person_id), exposureOf(row as ExposureRow));
        break;
      case 'changed':
        result.changed.push(exposureOf(row as ExposureRow));
        break;
      case 'unit':
        result.units.set(unitKey(row.experiment_id, row.metric_uuid as string, row.person_id), {
          experimentId: row.experiment_id,
          metricUuid: row.metric_uuid as string,
          personId: row.person_id,
          num: row.num as number,
          numCount: Number(row.num_count),
          den: row.den as number,
          denCount: Number(row.den_count),
          step: row.step as number,
          stepAt: row.step_at,
        });
        break;
      case 'earlier':
        result.earlier.push({
          experimentId: row.experiment_id,
          uuid: row.event_uuid as string,
          event: row.event as string,
          properties: row.properties ?? {},
          timestamp: row.timestamp as Date,
          personId: row.person_id,
        });
    }
  }
  return result;
}

export interface SumsDelta {
  experimentId: number;
  metricUuid: string;
  variant: string;
  n: number;
  s: number;
  q: number;
  ds: number;
  dq: number;
  p: number;
  steps: number[];
}

export interface DayDelta {
  experimentId: number;
  variant: string;
  day: string;
  n: number;
}

export interface MetricUnit {
  experimentId: number;
  metricUuid: string;
  personId: string;
  num: number;
  numCount: number;
  den: number;
  denCount: number;
  step: number;
  stepAt: Date | null;
}

export const unitKey = (experimentId: number, metricUuid: string, personId: string) => `${experimentId}\u0000${metricUuid}\u0000${personId}`;

export interface StateWrites {
  updated: MetricUnit[];
  inserted: MetricUnit[];
  sums: SumsDelta[];
  days: DayDelta[];
  shard: number;
}

const unitColumns = (units: MetricUnit[]): unknown[] => [
  units.map((u) => u.experimentId),
  units.map((u) => u.metricUuid),
  units.map((u) => u.personId),
  units.map((u) => u.num),
  units.map((u) => u.numCount),
  units.map((u) => u.den),
  units.map((u) => u.denCount),
  units.map((u) => u.step),
  units.map((u) => u.stepAt),
];

const unitsUnnest = (first: number) =>
  `unnest($${first}::int[], $${first + 1}::text[], $${first + 2}::uuid[], $${first + 3}::float8[], $${first + 4}::bigint[], $${first + 5}::float8[], $${first + 6}::bigint[], $${first + 7}::int[], $${first + 8}::timestamptz[])`;

/**
 * Every write of a batch after its exposures, in one statement (each part on its own table): the
 * aggregates read before updated, new ones inserted (a new row inserted meanwhile by another
 * batch is a unique violation, on which ingestion reruns the batch), the sums and the daily counts.
 *
 * Every row is reached through its primary key (the updates as an upsert on it, the reads above
 * through a per-key subquery): a prepared statement keeps the plan made when the tables were
 * small, and a join planned then scans the whole table each batch once it has grown (seen in the
 * bench: 100 000 exposures scanned per batch by the end of a 30 s window).
 */
export async function writeState(db: WriteTx, writes: StateWrites): Promise<void> {
  const { updated, inserted, sums, days, shard } = writes;
  if (updated.length + inserted.length + sums.length + days.length === 0) return;
  await db.query({
    name: 'bellwether-experiments-write-state',
    text: `WITH updated AS (
       INSERT INTO experiment_metric_units AS u (experiment_id, metric_uuid, person_id, num, num_count, den, den_count, step, step_at)
       SELECT * FROM ${unitsUnnest(1)}
       ON CONFLICT (experiment_id, metric_uuid, person_id) DO UPDATE SET
         num = excluded.num, num_count = excluded.num_count, den = excluded.den, den_count = excluded.den_count, step = excluded.step, step_at = excluded.step_at
       RETURNING 1
     ), inserted AS (
       INSERT INTO experiment_metric_units (experiment_id, metric_uuid, person_id, num, num_count, den, den_count, step, step_at)
       SELECT * FROM ${unitsUnnest(10)}
       RETURNING 1
     ), sums AS (
       INSERT INTO experiment_metric_sums AS t (experiment_id, metric_uuid, variant, shard, n, s, q, ds, dq, p, steps)
       SELECT k.experiment_id, k.metric_uuid, k.variant, $29, k.n, k.s, k.q, k.ds, k.dq, k.p, k.steps::bigint[]
         FROM unnest($19::int[], $20::text[], $21::text[], $22::bigint[], $23::float8[], $24::float8[], $25::float8[], $26::float8[], $27::float8[], $28::text[])
           AS k(experiment_id, metric_uuid, variant, n, s, q, ds, dq, p, steps)
        ORDER BY 1, 2, 3
       ON CONFLICT (experiment_id, metric_uuid, variant, shard) DO UPDATE SET
         n = t.n + excluded.n, s = t.s + excluded.s, q = t.q + excluded.q, ds = t.ds + excluded.ds, dq = t.dq + excluded.dq, p = t.p + excluded.p,
         steps = CASE WHEN cardinality(t.steps) = 0 THEN excluded.steps
                      ELSE (SELECT array_agg(coalesce(a, 0) + coalesce(b, 0) ORDER BY i) FROM unnest(t.steps, excluded.steps) WITH ORDINALITY AS z(a, b, i)) END
       RETURNING 1
     ), days AS (
       INSERT INTO experiment_exposure_days AS t (experiment_id, variant, day, shard, n)
       SELECT k.experiment_id, k.variant, k.day, $29, k.n
         FROM unnest($30::int[], $31::text[], $32::date[], $33::bigint[]) AS k(experiment_id, variant, day, n)
        ORDER BY 1, 2, 3
       ON CONFLICT (experiment_id, variant, day, shard) DO UPDATE SET n = t.n + excluded.n
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM updated) + (SELECT count(*) FROM inserted)
          + (SELECT count(*) FROM sums) + (SELECT count(*) FROM days) AS n`,
    values: [
      ...unitColumns(updated),
      ...unitColumns(inserted),
      sums.map((d) => d.experimentId),
      sums.map((d) => d.metricUuid),
      sums.map((d) => d.variant),
      sums.map((d) => d.n),
      sums.map((d) => d.s),
      sums.map((d) => d.q),
      sums.map((d) => d.ds),
      sums.map((d) => d.dq),
      sums.map((d) => d.p),
      sums.map((d) => `{${d.steps.join(',')}}`),
      shard,
      days.map((d) => d.experimentId),
      days.map((d) => d.variant),
      days.map((d) => d.day),
      days.map((d) => d.n),
    ],
  });
}

/** Forgets an experiment's state (a rebuild follows, or the experiment went back to draft). */
export async function clearState(db: WriteTx, experimentId: number): Promise<void> {
  await lockExperimentState(db, experimentId);
  await db.query('DELETE FROM experiment_metric_units WHERE experiment_id = $1', [experimentId]);
  await db.query('DELETE FROM experiment_exposures WHERE experiment_id = $1', [experimentId]);
  await db.query('DELETE FROM experiment_metric_sums WHERE experiment_id = $1', [experimentId]);
  await db.query('DELETE FROM experiment_exposure_days WHERE experiment_id = $1', [experimentId]);
}
