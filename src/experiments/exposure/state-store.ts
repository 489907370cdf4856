/** SQL of the ingestion-time state: exposures and per-metric per-person aggregates. */
import type { WriteTx } from '../../db/unit-of-work.ts';

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

export interface PendingEvent {
  experimentId: number;
  personId: string;
  eventUuid: string;
  timestamp: Date;
}

/** A kept event released by an exposure written now, as stored. */
export interface ReleasedEvent {
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
  /** The kept events of persons exposed now, stamped at or after their exposure (taken out of the keeping). */
  released: ReleasedEvent[];
  /** The stored aggregates of the (experiment, metric, person) keys read. */
  units: Map<string, MetricUnit>;
}

interface ExposeRow {
  part: 'before' | 'changed' | 'unit' | 'released';
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

/**
 * A batch's whole read and exposure write, in one statement (prepared once per connection: its
 * planning costs more than running it):
 * - the stored exposures of `pairs` as they were (the statement's snapshot);
 * - the exposures merged (the earliest time and its variant win; a second distinct variant marks the
 *   person as seen in several; a repeat that changes nothing writes nothing), as written;
 * - with `takePending`, the kept events of the persons written that are stamped at or after their
 *   exposure, taken out of the keeping and read back from the events;
 * - the stored aggregates of `units`.
 *
 * No row lock is taken to read: the caller holds the (experiment, person) locks of state-locks.ts
 * until it commits, so no other batch writes these persons' state meanwhile.
 */
export async function exposeAndRead(
  db: WriteTx,
  projectId: number,
  request: {
    pairs: Array<{ experimentId: number; personId: string }>;
    writes: ExposureWrite[];
    units: Array<{ experimentId: number; metricUuid: string; personId: string }>;
    takePending: boolean;
  },
): Promise<ExposeAndRead> {
  const { pairs, writes, units: unitKeys, takePending } = request;
  const result: ExposeAndRead = { before: new Map(), changed: [], released: [], units: new Map() };
  if (pairs.length === 0 && writes.length === 0 && unitKeys.length === 0) return result;
  const nothing =
    'NULL::text AS metric_uuid, NULL::float8 AS num, NULL::bigint AS num_count, NULL::float8 AS den, NULL::bigint AS den_count, NULL::int AS step, ' +
    'NULL::timestamptz AS step_at, NULL::uuid AS event_uuid, NULL::text AS event, NULL::jsonb AS properties, NULL::timestamptz AS "timestamp"';
  const { rows } = await db.query<ExposeRow>({
    name: 'bellwether-experiments-expose-and-read',
    text: `WITH before AS MATERIALIZED (
       SELECT x.experiment_id, x.person_id, x.first_seen_at, x.first_variant, x.multiple
         FROM experiment_exposures x
         JOIN (SELECT DISTINCT * FROM unnest($1::int[], $2::uuid[])) AS k(experiment_id, person_id)
           ON x.experiment_id = k.experiment_id AND x.person_id = k.person_id
     ), up AS (
       INSERT INTO experiment_exposures AS x (experiment_id, person_id, first_seen_at, first_variant, multiple)
       SELECT * FROM unnest($3::int[], $4::uuid[], $5::timestamptz[], $6::text[], $7::boolean[])
       ON CONFLICT (experiment_id, person_id) DO UPDATE SET
         multiple = x.multiple OR excluded.multiple OR x.first_variant <> excluded.first_variant,
         first_variant = CASE WHEN excluded.first_seen_at < x.first_seen_at THEN excluded.first_variant ELSE x.first_variant END,
         first_seen_at = least(x.first_seen_at, excluded.first_seen_at)
       WHERE excluded.first_seen_at < x.first_seen_at OR x.first_variant <> excluded.first_variant OR (excluded.multiple AND NOT x.multiple)
       RETURNING experiment_id, person_id, first_seen_at, first_variant, multiple
     ), taken AS (
       DELETE FROM experiment_pending_events p USING up
        WHERE $8 AND p.experiment_id = up.experiment_id AND p.person_id = up.person_id AND p.timestamp >= up.first_seen_at
       RETURNING p.experiment_id, p.event_uuid
     )
     SELECT 'before' AS part, experiment_id, person_id, first_seen_at, first_variant, multiple, ${nothing} FROM before
     UNION ALL
     SELECT 'changed', experiment_id, person_id, first_seen_at, first_variant, multiple, ${nothing} FROM up
     UNION ALL
     SELECT 'unit', m.experiment_id, m.person_id, NULL, NULL, NULL, m.metric_uuid, m.num, m.num_count, m.den, m.den_count, m.step, m.step_at,
            NULL, NULL, NULL, NULL
       FROM unnest($9::int[], $10::text[], $11::uuid[]) AS k(experiment_id, metric_uuid, person_id)
       JOIN experiment_metric_units m ON m.experiment_id = k.experiment_id AND m.metric_uuid = k.metric_uuid AND m.person_id = k.person_id
     UNION ALL
     SELECT 'released', t.experiment_id, e.person_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
            e.uuid, e.event, e.properties, e.timestamp
       FROM taken t JOIN events e ON e.project_id = $12 AND e.uuid = t.event_uuid AND e.person_id IS NOT NULL`,
    values: [
      pairs.map((p) => p.experimentId),
      pairs.map((p) => p.personId),
      writes.map((r) => r.experimentId),
      writes.map((r) => r.personId),
      writes.map((r) => r.firstSeenAt),
      writes.map((r) => r.firstVariant),
      writes.map((r) => r.multiple),
      takePending,
      unitKeys.map((k) => k.experimentId),
      unitKeys.map((k) => k.metricUuid),
      unitKeys.map((k) => k.personId),
      projectId,
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
      case 'released':
        result.released.push({
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

/** Forgets kept events older than an hour. */
export async function prunePendingEvents(db: WriteTx): Promise<void> {
  await db.query(`DELETE FROM experiment_pending_events WHERE recorded_at < now() - interval '1 hour'`);
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
  pending: PendingEvent[];
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
 * batch is a unique violation, on which ingestion reruns the batch), the kept events, the sums and
 * the daily counts.
 */
export async function writeState(db: WriteTx, writes: StateWrites): Promise<void> {
  const { updated, inserted, pending, sums, days, shard } = writes;
  if (updated.length + inserted.length + pending.length + sums.length + days.length === 0) return;
  await db.query({
    name: 'bellwether-experiments-write-state',
    text: `WITH updated AS (
       UPDATE experiment_metric_units u SET num = k.num, num_count = k.num_count, den = k.den, den_count = k.den_count, step = k.step, step_at = k.step_at
         FROM ${unitsUnnest(1)} AS k(experiment_id, metric_uuid, person_id, num, num_count, den, den_count, step, step_at)
        WHERE u.experiment_id = k.experiment_id AND u.metric_uuid = k.metric_uuid AND u.person_id = k.person_id
       RETURNING 1
     ), inserted AS (
       INSERT INTO experiment_metric_units (experiment_id, metric_uuid, person_id, num, num_count, den, den_count, step, step_at)
       SELECT * FROM ${unitsUnnest(10)}
       RETURNING 1
     ), kept AS (
       INSERT INTO experiment_pending_events (experiment_id, person_id, event_uuid, timestamp)
       SELECT * FROM unnest($19::int[], $20::uuid[], $21::uuid[], $22::timestamptz[])
       ON CONFLICT DO NOTHING
       RETURNING 1
     ), sums AS (
       INSERT INTO experiment_metric_sums AS t (experiment_id, metric_uuid, variant, shard, n, s, q, ds, dq, p, steps)
       SELECT k.experiment_id, k.metric_uuid, k.variant, $33, k.n, k.s, k.q, k.ds, k.dq, k.p, k.steps::bigint[]
         FROM unnest($23::int[], $24::text[], $25::text[], $26::bigint[], $27::float8[], $28::float8[], $29::float8[], $30::float8[], $31::float8[], $32::text[])
           AS k(experiment_id, metric_uuid, variant, n, s, q, ds, dq, p, steps)
        ORDER BY 1, 2, 3
       ON CONFLICT (experiment_id, metric_uuid, variant, shard) DO UPDATE SET
         n = t.n + excluded.n, s = t.s + excluded.s, q = t.q + excluded.q, ds = t.ds + excluded.ds, dq = t.dq + excluded.dq, p = t.p + excluded.p,
         steps = CASE WHEN cardinality(t.steps) = 0 THEN excluded.steps
                      ELSE (SELECT array_agg(coalesce(a, 0) + coalesce(b, 0) ORDER BY i) FROM unnest(t.steps, excluded.steps) WITH ORDINALITY AS z(a, b, i)) END
       RETURNING 1
     ), days AS (
       INSERT INTO experiment_exposure_days AS t (experiment_id, variant, day, shard, n)
       SELECT k.experiment_id, k.variant, k.day, $33, k.n
         FROM unnest($34::int[], $35::text[], $36::date[], $37::bigint[]) AS k(experiment_id, variant, day, n)
        ORDER BY 1, 2, 3
       ON CONFLICT (experiment_id, variant, day, shard) DO UPDATE SET n = t.n + excluded.n
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM updated) + (SELECT count(*) FROM inserted) + (SELECT count(*) FROM kept)
          + (SELECT count(*) FROM sums) + (SELECT count(*) FROM days) AS n`,
    values: [
      ...unitColumns(updated),
      ...unitColumns(inserted),
      pending.map((r) => r.experimentId),
      pending.map((r) => r.personId),
      pending.map((r) => r.eventUuid),
      pending.map((r) => r.timestamp),
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
  await db.query('DELETE FROM experiment_metric_units WHERE experiment_id = $1', [experimentId]);
  await db.query('DELETE FROM experiment_exposures WHERE experiment_id = $1', [experimentId]);
  await db.query('DELETE FROM experiment_pending_events WHERE experiment_id = $1', [experimentId]);
  await db.query('DELETE FROM experiment_metric_sums WHERE experiment_id = $1', [experimentId]);
  await db.query('DELETE FROM experiment_exposure_days WHERE experiment_id = $1', [experimentId]);
}
