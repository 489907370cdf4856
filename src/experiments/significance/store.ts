/** SQL of the significance job: which experiments it looks at, and the notice that makes its event once-only. */
import type { ReadHandle } from '../../db/pool.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';
import type { ExperimentRecord } from '../record.ts';
import { EXPERIMENT_FROM, EXPERIMENT_SELECT } from '../store.ts';

/**
 * Up to `limit` running experiments (launched, not ended, not archived or deleted) with an id above
 * `afterId`, in id order, that still have a primary metric without a notice.
 */
export async function runningExperimentsAfter(db: ReadHandle, afterId: number, limit: number): Promise<ExperimentRecord[]> {
  const { rows } = await db.query<ExperimentRecord>(
    `SELECT ${EXPERIMENT_SELECT} FROM ${EXPERIMENT_FROM}
      WHERE e.id > $1 AND e.start_date IS NOT NULL AND e.end_date IS NULL AND NOT e.deleted AND NOT e.archived
        AND EXISTS (
          SELECT 1 FROM jsonb_array_elements(e.metrics) AS m(metric)
           WHERE NOT EXISTS (SELECT 1 FROM experiment_significance_notices n WHERE n.experiment_id = e.id AND n.metric_uuid = m.metric->>'uuid'))
      ORDER BY e.id LIMIT $2`,
    [afterId, limit],
  );
  return rows;
}

/**
 * Records that (experiment, metric) came out significant, if nothing recorded it before and the
 * experiment is still running: true for the one transaction that wins, which raises the event.
 */
export async function claimSignificanceNotice(db: WriteTx, experimentId: number, metricUuid: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO experiment_significance_notices (experiment_id, metric_uuid)
     SELECT e.id, $2 FROM experiments e
      WHERE e.id = $1 AND e.start_date IS NOT NULL AND e.end_date IS NULL AND NOT e.deleted AND NOT e.archived
     ON CONFLICT DO NOTHING`,
    [experimentId, metricUuid],
  );
  return rowCount === 1;
}
