/** SQL of the ingestion-time state: exposures and per-metric per-person aggregates. */
import type { Queryable } from '../../db/pool.ts';

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
export async function lockExposures(db: Queryable, pairs: Array<{ experimentId: number; personId: string }>): Promise<Map<string, StoredExposure>> {
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
  db: Queryable,
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

/** Keeps metric events of persons not exposed yet (a repeat is ignored). */
export async function addPendingEvents(db: Queryable, rows: PendingEvent[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO experiment_pending_events (experiment_id, person_id, event_uuid, timestamp)
     SELECT * FROM unnest($1::int[], $2::uuid[], $3::uuid[], $4::timestamptz[])
     ON CONFLICT DO NOTHING`,
    [rows.map((r) => r.experimentId), rows.map((r) => r.personId), rows.map((r) => r.eventUuid), rows.map((r) => r.timestamp)],
  );
}

/** Forgets kept events older than an hour. */
export async function prunePendingEvents(db: Queryable): Promise<void> {
  await db.query(`DELETE FROM experiment_pending_events WHERE recorded_at < now() - interval '1 hour'`);
}

/** Stored events by uuid, with their persons. */
export async function eventsByUuid(
  db: Queryable,
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

/** The exposures of these persons in these experiments, by `exposureKey`. */
export async function exposuresOf(db: Queryable, experimentIds: number[], personIds: string[]): Promise<Map<string, StoredExposure>> {
  const result = new Map<string, StoredExposure>();
  if (experimentIds.length === 0 || personIds.length === 0) return result;
  const { rows } = await db.query<ExposureRow>(
    `SELECT experiment_id, person_id, first_seen_at, first_variant, multiple FROM experiment_exposures
      WHERE experiment_id = ANY($1::int[]) AND person_id = ANY($2::uuid[])
      FOR SHARE`,
    [experimentIds, personIds],
  );
  for (const row of rows) result.set(exposureKey(row.experiment_id, row.person_id), exposureOf(row));
  return result;
}

/** Every metric aggregate of these persons in this experiment (a person changing variant takes them along). */
export async function unitsOfPersons(db: Queryable, experimentId: number, personIds: string[]): Promise<MetricUnit[]> {
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

/** Adds deltas to the running sums and the daily exposure counts, in one shard of each row, in one statement. */
export async function addSums(db: Queryable, deltas: SumsDelta[], days: DayDelta[], shard: number): Promise<void> {
  if (deltas.length === 0 && days.length === 0) return;
  await db.query(
    `WITH sums AS (
       INSERT INTO experiment_metric_sums AS t (experiment_id, metric_uuid, variant, shard, n, s, q, ds, dq, p, steps)
       SELECT k.experiment_id, k.metric_uuid, k.variant, $11, k.n, k.s, k.q, k.ds, k.dq, k.p, k.steps::bigint[]
         FROM unnest($1::int[], $2::text[], $3::text[], $4::bigint[], $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::float8[], $10::text[])
           AS k(experiment_id, metric_uuid, variant, n, s, q, ds, dq, p, steps)
        ORDER BY 1, 2, 3
       ON CONFLICT (experiment_id, metric_uuid, variant, shard) DO UPDATE SET
         n = t.n + excluded.n, s = t.s + excluded.s, q = t.q + excluded.q, ds = t.ds + excluded.ds, dq = t.dq + excluded.dq, p = t.p + excluded.p,
         steps = CASE WHEN cardinality(t.steps) = 0 THEN excluded.steps
                      ELSE (SELECT array_agg(coalesce(a, 0) + coalesce(b, 0) ORDER BY i) FROM unnest(t.steps, excluded.steps) WITH ORDINALITY AS z(a, b, i)) END
       RETURNING 1
     ), days AS (
       INSERT INTO experiment_exposure_days AS t (experiment_id, variant, day, shard, n)
       SELECT k.experiment_id, k.variant, k.day, $11, k.n
         FROM unnest($12::int[], $13::text[], $14::date[], $15::bigint[]) AS k(experiment_id, variant, day, n)
        ORDER BY 1, 2, 3
       ON CONFLICT (experiment_id, variant, day, shard) DO UPDATE SET n = t.n + excluded.n
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM sums) + (SELECT count(*) FROM days) AS n`,
    [
      deltas.map((d) => d.experimentId),
      deltas.map((d) => d.metricUuid),
      deltas.map((d) => d.variant),
      deltas.map((d) => d.n),
      deltas.map((d) => d.s),
      deltas.map((d) => d.q),
      deltas.map((d) => d.ds),
      deltas.map((d) => d.dq),
      deltas.map((d) => d.p),
      deltas.map((d) => `{${d.steps.join(',')}}`),
      shard,
      days.map((d) => d.experimentId),
      days.map((d) => d.variant),
      days.map((d) => d.day),
      days.map((d) => d.n),
    ],
  );
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

/** The stored aggregates of these units, locked for the caller's transaction. */
export async function lockMetricUnits(
  db: Queryable,
  keys: Array<{ experimentId: number; metricUuid: string; personId: string }>,
): Promise<Map<string, MetricUnit>> {
  const result = new Map<string, MetricUnit>();
  if (keys.length === 0) return result;
  const { rows } = await db.query<{
    experiment_id: number; metric_uuid: string; person_id: string; num: number; num_count: string; den: number; den_count: string; step: number; step_at: Date | null;
  }>(
    `SELECT u.* FROM experiment_metric_units u
       JOIN unnest($1::int[], $2::text[], $3::uuid[]) AS k(experiment_id, metric_uuid, person_id)
         ON u.experiment_id = k.experiment_id AND u.metric_uuid = k.metric_uuid AND u.person_id = k.person_id
     ORDER BY u.experiment_id, u.metric_uuid, u.person_id
     FOR UPDATE OF u`,
    [keys.map((k) => k.experimentId), keys.map((k) => k.metricUuid), keys.map((k) => k.personId)],
  );
  for (const row of rows) {
    result.set(unitKey(row.experiment_id, row.metric_uuid, row.person_id), {
      experimentId: row.experiment_id,
      metricUuid: row.metric_uuid,
      personId: row.person_id,
      num: row.num,
      numCount: Number(row.num_count),
      den: row.den,
      denCount: Number(row.den_count),
      step: row.step,
      stepAt: row.step_at,
    });
  }
  return result;
}

function columns(units: MetricUnit[]): unknown[] {
  return [
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
}

const UNNEST = `unnest($1::int[], $2::text[], $3::uuid[], $4::float8[], $5::bigint[], $6::float8[], $7::bigint[], $8::int[], $9::timestamptz[])`;

/**
 * Writes the new aggregates: rows read (and locked) before are updated, new ones inserted. A new
 * row inserted meanwhile by another batch is a unique violation, on which ingestion reruns the batch.
 */
export async function writeMetricUnits(db: Queryable, updated: MetricUnit[], inserted: MetricUnit[]): Promise<void> {
  if (updated.length > 0) {
    await db.query(
      `UPDATE experiment_metric_units u SET num = k.num, num_count = k.num_count, den = k.den, den_count = k.den_count, step = k.step, step_at = k.step_at
         FROM ${UNNEST} AS k(experiment_id, metric_uuid, person_id, num, num_count, den, den_count, step, step_at)
        WHERE u.experiment_id = k.experiment_id AND u.metric_uuid = k.metric_uuid AND u.person_id = k.person_id`,
      columns(updated),
    );
  }
  if (inserted.length > 0) {
    await db.query(
      `INSERT INTO experiment_metric_units (experiment_id, metric_uuid, person_id, num, num_count, den, den_count, step, step_at)
       SELECT * FROM ${UNNEST}`,
      columns(inserted),
    );
  }
}

/** Forgets an experiment's state (a rebuild follows, or the experiment went back to draft). */
export async function clearState(db: Queryable, experimentId: number): Promise<void> {
  await db.query('DELETE FROM experiment_metric_units WHERE experiment_id = $1', [experimentId]);
  await db.query('DELETE FROM experiment_exposures WHERE experiment_id = $1', [experimentId]);
  await db.query('DELETE FROM experiment_pending_events WHERE experiment_id = $1', [experimentId]);
  await db.query('DELETE FROM experiment_metric_sums WHERE experiment_id = $1', [experimentId]);
  await db.query('DELETE FROM experiment_exposure_days WHERE experiment_id = $1', [experimentId]);
}
