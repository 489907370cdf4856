/** What ingestion needs to know of a launched experiment, read in the batch's transaction. */
import type { ReadHandle } from '../../db/pool.ts';
import { parseMetric } from '../metrics/parse.ts';
import type { ParsedMetric } from '../metrics/types.ts';
import { exposureRule, type ExposureRule } from './criteria.ts';

export interface LiveExperiment {
  id: number;
  flagId: number;
  flagKey: string;
  /** The flag's variant keys minus excluded ones: only these expose a person. */
  variants: Set<string>;
  start: Date;
  end: Date | null;
  exposure: ExposureRule;
  /** Primary and secondary metrics, each once. */
  metrics: ParsedMetric[];
}

export interface LiveExperimentRow {
  id: number;
  flag_id: number;
  flag_key: string;
  flag_filters: { multivariate?: { variants?: Array<{ key?: unknown }> } | null } | null;
  start_date: Date;
  end_date: Date | null;
  exposure_criteria: Record<string, unknown> | null;
  metrics: unknown[];
  metrics_secondary: unknown[];
  excluded_variants: string[];
}

/**
 * Experiments still taking events: launched, not deleted, and not ended more than a day ago (late
 * events stamped before the end are still counted within that day).
 */
const LATE_EVENTS_MS = 24 * 60 * 60 * 1000;
const LATE_EVENTS_INTERVAL = `interval '1 day'`;
const LIVE_SQL = `SELECT e.id, f.id AS flag_id, f.key AS flag_key, f.filters AS flag_filters, e.start_date, e.end_date, e.exposure_criteria,
                         e.metrics, e.metrics_secondary, e.excluded_variants
                    FROM experiments e JOIN feature_flags f ON f.id = e.feature_flag_id
                   WHERE e.project_id = $1 AND e.start_date IS NOT NULL AND NOT e.deleted`;

export async function liveExperiments(db: ReadHandle, projectId: number): Promise<LiveExperiment[]> {
  const { rows } = await db.query<LiveExperimentRow>(`${LIVE_SQL} AND (e.end_date IS NULL OR e.end_date > now() - ${LATE_EVENTS_INTERVAL})`, [projectId]);
  return rows.map(toLive);
}

/** Whether a launched experiment still takes events at `now` (the time test of `liveExperiments`, for a list kept in memory). */
export function stillTakingEvents(experiment: LiveExperiment, now: Date): boolean {
  return experiment.end === null || experiment.end.getTime() > now.getTime() - LATE_EVENTS_MS;
}

export async function liveExperimentById(db: ReadHandle, projectId: number, id: number): Promise<LiveExperiment | null> {
  const { rows } = await db.query<LiveExperimentRow>(`${LIVE_SQL} AND e.id = $2`, [projectId, id]);
  return rows.length === 0 ? null : toLive(rows[0]);
}

export function toLive(row: LiveExperimentRow): LiveExperiment {
  const excluded = new Set(row.excluded_variants ?? []);
  const variants = new Set<string>();
  for (const variant of row.flag_filters?.multivariate?.variants ?? []) {
    if (typeof variant.key === 'string' && !excluded.has(variant.key)) variants.add(variant.key);
  }
  const metrics: ParsedMetric[] = [];
  const seen = new Set<string>();
  for (const raw of [...(row.metrics ?? []), ...(row.metrics_secondary ?? [])]) {
    let metric: ParsedMetric;
    try {
      metric = parseMetric(raw, 'metrics');
    } catch {
      continue; // stored before a rule tightened: left out rather than stopping ingestion
    }
    if (metric.uuid === '' || seen.has(metric.uuid)) continue;
    seen.add(metric.uuid);
    metrics.push(metric);
  }
  return {
    id: row.id,
    flagId: row.flag_id,
    flagKey: row.flag_key,
    variants,
    start: row.start_date,
    end: row.end_date,
    exposure: exposureRule(row.exposure_criteria, row.flag_key),
    metrics,
  };
}
