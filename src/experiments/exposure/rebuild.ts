/**
 * Rebuilds one experiment's state from the stored events, after a change that alters what the
 * state means (dates, exposure criteria, metrics, variants): the state is cleared and the events
 * from the start date on are replayed, in time order and in pages, through the same reading as
 * ingestion. Runs in the caller's unit of work, so the experiment and its state change together.
 */
import type { WriteTx } from '../../db/unit-of-work.ts';
import { applyEvents, type PersonEvent } from './apply.ts';
import { liveExperimentById } from './live.ts';
import { namesRead } from './processor.ts';
import { clearState } from './state-store.ts';

const PAGE = 5000;

export async function rebuildState(db: WriteTx, projectId: number, experimentId: number): Promise<void> {
  await clearState(db, experimentId);
  const experiment = await liveExperimentById(db, projectId, experimentId);
  if (!experiment) return;
  const names = namesRead([experiment]);
  const anyEvent = names.has(null);
  const eventNames = [...names].filter((name): name is string => name !== null);
  let after: { timestamp: Date; uuid: string } | null = null;
  for (;;) {
    const params: unknown[] = [projectId, experiment.start, experiment.end ?? new Date(8.64e15), PAGE];
    let where = 'project_id = $1 AND timestamp >= $2 AND timestamp <= $3 AND person_id IS NOT NULL';
    if (!anyEvent) where += ` AND event = ANY($${params.push(eventNames)}::text[])`;
    if (after) where += ` AND (timestamp, uuid) > ($${params.push(after.timestamp)}::timestamptz, $${params.push(after.uuid)}::uuid)`;
    const { rows } = await db.query<{ uuid: string; event: string; properties: Record<string, unknown>; timestamp: Date; person_id: string }>(
      `SELECT uuid, event, properties, timestamp, person_id FROM events WHERE ${where} ORDER BY timestamp, uuid LIMIT $4`,
      params,
    );
    const events: PersonEvent[] = rows.map((row) => ({ uuid: row.uuid, event: row.event, properties: row.properties, timestamp: row.timestamp, personId: row.person_id }));
    await applyEvents(db, [experiment], events, { projectId, lookBack: false });
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1];
    after = { timestamp: last.timestamp, uuid: last.uuid };
  }
}
