/** SQL of the ingestion-time state: exposures and per-metric per-person aggregates. */
import type { WriteTx } from '../../db/unit-of-work.ts';
import type { ReadHandle } from '../../db/pool.ts';

export interface ExposureWrite {
  experimentId: number;
  personId: string;
  firstSeenAt: Date;
  firstVariant: string;
  multiple: boolean;
}

/**
 * Merges exposures into the stored ones: the earliest time and its variant win, and a second
 * distinct variant marks the person as seen in several. A repeat that changes nothing writes nothing.
 */
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

/** The stored exposures of these (experiment, person) pairs, locked for the caller's transaction. */
export async function lockExposures(db: WriteTx, pairs: Array<{ experimentId: number; personId: string }>): Promise<Map<string, StoredExposure>> {
  const result = new Map<string, StoredExposure>();
  if (pairs.length === 0) return result;
  const { rows } = await db.query<ExposureRow>(
    `SELECT x.experiment_id, x.person_id, x.first_seen_at, x.first_variant, x.multiple
       FROM experiment_exposures x
       JOIN unnest($1::int[], $2::uuid[]) AS k(experiment_id, person_id) ON x.experiment_id = k.experiment_id AND x.person_id = k.person_id
      ORDER BY x.experiment_id, x.person_id
      FOR UPDATE OF x`,
    [pairs.map((p) => p.experimentId), pairs.map((p) => p.personId)],
  );
  for (const row of rows) result.set(exposureKey(row.experiment_id, row.person_id), exposureOf(row));
  return result;
}

/**
 * Merges exposures into the stored ones (the earliest time and its variant win; a second distinct
 * variant marks the person as seen in several; a repeat that changes nothing writes nothing), and
 * with `takePending` takes, in the same statement, the kept events of the persons written that are
 * stamped at or after their exposure.
 */
export async function upsertExposures(
  db: WriteTx,
  rows: ExposureWrite[],
  takePending: boolean,
): Promise<{ changed: StoredExposure[]; taken: Array<{ experimentId: number; eventUuid: string }> }> {
  if (rows.length === 0) return { changed: [], taken: [] };
  const result = await db.query<ExposureRow & { taken: string | null }>(
    `WITH up AS (
       INSERT INTO experiment_exposures AS x (experiment_id, person_id, first_seen_at, first_variant, multiple)
       SELECT * FROM unnest($1::int[], $2::uuid[], $3::timestamptz[], $4::text[], $5::boolean[])
       ON CONFLICT (experiment_id, person_id) DO UPDATE SET
         multiple = x.multiple OR excluded.multiple OR x.first_variant <> excluded.first_variant,
         first_variant = CASE WHEN excluded.first_seen_at < x.first_seen_at THEN excluded.first_variant ELSE x.first_variant END,
         first_seen_at = least(x.first_seen_at, excluded.first_seen_at)
       WHERE excluded.first_seen_at < x.first_seen_at OR x.first_variant <> excluded.first_variant OR (excluded.multiple AND NOT x.multiple)
       RETURNING experiment_id, person_id, first_seen_at, first_variant, multiple
     ), taken AS (
       DELETE FROM experiment_pending_events p USING up
        WHERE $6 AND p.experiment_id = up.experiment_id AND p.person_id = up.person_id AND p.timestamp >= up.first_seen_at
       RETURNING p.experiment_id, p.event_uuid
     )
     SELECT experiment_id, person_id, first_seen_at, first_variant, multiple, NULL::uuid AS taken FROM up
     UNION ALL
     SELECT experiment_id, NULL, NULL, NULL, NULL, event_uuid FROM taken`,
    [
      rows.map((r) => r.experimentId),
      rows.map((r) => r.personId),
      rows.map((r) => r.firstSeenAt),
      rows.map((r) => r.firstVariant),
      rows.map((r) => r.multiple),
      takePending,
    ],
  );
  const changed: StoredExposure[] = [];
  const taken: Array<{ experimentId: number; eventUuid: string }> = [];
  for (const row of result.rows) {
    if (row.taken !== null) taken.push({ experimentId: row.experiment_id, eventUuid: row.taken });
    else changed.push(exposureOf(row));
  }
  return { changed, taken };
}

export interface PendingEvent {
  experimentId: number;
  personId: string;
  eventUuid: string;
  timestamp: Date;
}

/** Forgets kept events older than an hour. */
export async function prunePendingEvents(db: WriteTx): Promise<void> {
  await db.query(`DELETE FROM experiment_pending_events WHERE recorded_at < now() - interval '1 hour'`);
}

/** Stored events by uuid, with their persons. */
export async function eventsByUuid(
  db: ReadHandle,
  projectId: number,
  uuids: string[],
): Promise<Array<{ uuid: string; event: string; properties: Record<string, unknown>; timestamp: Date; person_id: string }>> {
  if (uuids.length === 0) return [];
  const { rows } = await db.query<{ uuid: string; event: string; properties: Record<string, unknown>; timestamp: Date; person_id: string }>(
    'SELECT uuid, event, properties, timestamp, person_id FROM events WHERE project_id = $1 AND uuid = ANY($2::uuid[]) AND person_id IS NOT NULL',
    [projectId, uuids],
  );
  return rows;
}

/** Every metric aggregate of these persons in this experiment (a person changing variant takes them along). */
export async function unitsOfPersons(db: ReadHandle, experimentId: number, personIds: string[]): Promise<MetricUnit[]> {
  if (personIds.length === 0) return [];
  const { rows } = await db.query<{ metric_uuid: string; person_id: string; num: number; num_count: string; den: number; den_count: string; step: number; step_at: Date | null }>(
    'SELECT * FROM experiment_metric_units WHERE experiment_id = $1 AND person_id = ANY($2::uuid[])',
    [experimentId, personIds],
  );
  return rows.map((row) => ({
    experimentId,
    metricUuid: row.metric_uuid,
    personId: row.person_id,
    num: row.num,
    numCount: Number(row.num_count),
    den: row.den,
    denCount: Number(row.den_count),
    step: row.step,
    stepAt: row.step_at,
  }));
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

/**
 * For metric events of these (experiment, metric, person) keys: the person's exposure (held
 * against a concurrent change of variant) and their stored aggregate (locked), in one statement.
 * Keys whose person is not exposed are absent.
 */
export async function readForMetrics(
  db: ReadHandle,
  keys: Array<{ experimentId: number; metricUuid: string; personId: string }>,
): Promise<{ exposures: Map<string, StoredExposure>; units: Map<string, MetricUnit> }> {
  const exposures = new Map<string, StoredExposure>();
  const units = new Map<string, MetricUnit>();
  if (keys.length === 0) return { exposures, units };
  const { rows } = await db.query<ExposureRow & {
    metric_uuid: string; num: number | null; num_count: string | null; den: number | null; den_count: string | null; step: number | null; step_at: Date | null;
  }>(
    `SELECT k.experiment_id, k.metric_uuid, k.person_id, x.first_seen_at, x.first_variant, x.multiple,
            u.num, u.num_count, u.den, u.den_count, u.step, u.step_at
       FROM unnest($1::int[], $2::text[], $3::uuid[]) AS k(experiment_id, metric_uuid, person_id)
       JOIN experiment_exposures x ON x.experiment_id = k.experiment_id AND x.person_id = k.person_id
       LEFT JOIN LATERAL (
         SELECT * FROM experiment_metric_units m
          WHERE m.experiment_id = k.experiment_id AND m.metric_uuid = k.metric_uuid AND m.person_id = k.person_id
          FOR UPDATE
       ) u ON true
      ORDER BY k.experiment_id, k.person_id, k.metric_uuid
      FOR SHARE OF x`,
    [keys.map((k) => k.experimentId), keys.map((k) => k.metricUuid), keys.map((k) => k.personId)],
  );
  for (const row of rows) {
    exposures.set(exposureKey(row.experiment_id, row.person_id), exposureOf(row));
    if (row.num_count === null) continue;
    units.set(unitKey(row.experiment_id, row.metric_uuid, row.person_id), {
      experimentId: row.experiment_id,
      metricUuid: row.metric_uuid,
      personId: row.person_id,
      num: row.num as number,
      numCount: Number(row.num_count),
      den: row.den as number,
      denCount: Number(row.den_count),
      step: row.step as number,
      stepAt: row.step_at,
    });
  }
  return { exposures, units };
}

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
  await db.query(
    `WITH updated AS (
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
    [
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
  );
}

/** Forgets an experiment's state (a rebuild follows, or the experiment went back to draft). */
export async function clearState(db: WriteTx, experimentId: number): Promise<void> {
  await db.query('DELETE FROM experiment_metric_units WHERE experiment_id = $1', [experimentId]);
  await db.query('DELETE FROM experiment_exposures WHERE experiment_id = $1', [experimentId]);
  await db.query('DELETE FROM experiment_pending_events WHERE experiment_id = $1', [experimentId]);
  await db.query('DELETE FROM experiment_metric_sums WHERE experiment_id = $1', [experimentId]);
  await db.query('DELETE FROM experiment_exposure_days WHERE experiment_id = $1', [experimentId]);
}
