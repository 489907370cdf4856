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
export async function upsertExposures(db: Queryable, rows: ExposureWrite[]): Promise<Array<{ experimentId: number; personId: string; firstSeenAt: Date }>> {
  if (rows.length === 0) return [];
  const result = await db.query<{ experiment_id: number; person_id: string; first_seen_at: Date }>(
    `INSERT INTO experiment_exposures AS x (experiment_id, person_id, first_seen_at, first_variant, multiple)
     SELECT * FROM unnest($1::int[], $2::uuid[], $3::timestamptz[], $4::text[], $5::boolean[])
     ON CONFLICT (experiment_id, person_id) DO UPDATE SET
       multiple = x.multiple OR excluded.multiple OR x.first_variant <> excluded.first_variant,
       first_variant = CASE WHEN excluded.first_seen_at < x.first_seen_at THEN excluded.first_variant ELSE x.first_variant END,
       first_seen_at = least(x.first_seen_at, excluded.first_seen_at)
     WHERE excluded.first_seen_at < x.first_seen_at OR x.first_variant <> excluded.first_variant OR (excluded.multiple AND NOT x.multiple)
     RETURNING experiment_id, person_id, first_seen_at`,
    [
      rows.map((r) => r.experimentId),
      rows.map((r) => r.personId),
      rows.map((r) => r.firstSeenAt),
      rows.map((r) => r.firstVariant),
      rows.map((r) => r.multiple),
    ],
  );
  return result.rows.map((row) => ({ experimentId: row.experiment_id, personId: row.person_id, firstSeenAt: row.first_seen_at }));
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

/** Takes (deletes and answers) the kept events of these newly exposed persons stamped at or after their exposure. */
export async function takePendingEvents(
  db: Queryable,
  exposed: Array<{ experimentId: number; personId: string; firstSeenAt: Date }>,
): Promise<Array<{ experimentId: number; eventUuid: string }>> {
  if (exposed.length === 0) return [];
  const { rows } = await db.query<{ experiment_id: number; event_uuid: string }>(
    `DELETE FROM experiment_pending_events p
      USING unnest($1::int[], $2::uuid[], $3::timestamptz[]) AS k(experiment_id, person_id, first_seen_at)
      WHERE p.experiment_id = k.experiment_id AND p.person_id = k.person_id AND p.timestamp >= k.first_seen_at
      RETURNING p.experiment_id, p.event_uuid`,
    [exposed.map((r) => r.experimentId), exposed.map((r) => r.personId), exposed.map((r) => r.firstSeenAt)],
  );
  return rows.map((row) => ({ experimentId: row.experiment_id, eventUuid: row.event_uuid }));
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

/** First exposure times of these persons in these experiments: `experimentId:personId` → time. */
export async function exposureTimes(db: Queryable, experimentIds: number[], personIds: string[]): Promise<Map<string, Date>> {
  const result = new Map<string, Date>();
  if (experimentIds.length === 0 || personIds.length === 0) return result;
  const { rows } = await db.query<{ experiment_id: number; person_id: string; first_seen_at: Date }>(
    `SELECT experiment_id, person_id, first_seen_at FROM experiment_exposures
      WHERE experiment_id = ANY($1::int[]) AND person_id = ANY($2::uuid[])`,
    [experimentIds, personIds],
  );
  for (const row of rows) result.set(`${row.experiment_id}:${row.person_id}`, row.first_seen_at);
  return result;
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
}

/** Person ids of stored events, by event uuid. */
export async function personsOfEvents(db: Queryable, projectId: number, uuids: string[]): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  if (uuids.length === 0) return result;
  const { rows } = await db.query<{ uuid: string; person_id: string | null }>(
    'SELECT uuid, person_id FROM events WHERE project_id = $1 AND uuid = ANY($2::uuid[])',
    [projectId, uuids],
  );
  for (const row of rows) if (row.person_id !== null) result.set(row.uuid, row.person_id);
  return result;
}
