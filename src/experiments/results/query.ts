/**
 * The two query kinds PostHog's experiment pages and agent tools ask through `/query/`:
 * `ExperimentQuery` (one metric's per-variant statistics and their analysis) and
 * `ExperimentExposureQuery` (exposures per variant per day, totals, sample ratio mismatch).
 */
import type { ReadHandle } from '../../db/pool.ts';
import { DAY_MS, isoDay, isoUtc } from '../../kernel/time.ts';
import { validationError } from '../../kernel/errors.ts';
import { pythonStr } from '../../kernel/http/python-types.ts';
import type { FlagRecord } from '../../flags/record.ts';
import { findFlag } from '../../flags/store.ts';
import type { ExperimentDeps } from '../deps.ts';
import { exposureRule, MULTIPLE_VARIANT } from '../exposure/criteria.ts';
import { metricFingerprint } from '../fields.ts';
import { parseMetric } from '../metrics/parse.ts';
import type { ExperimentRecord, StoredMetric } from '../record.ts';
import { analyzeMetric, baselineKey, sampleRatioMismatch, StatisticsError, type ExperimentMetricResult, type VariantStats } from '../stats/index.ts';
import { findExperiment } from '../store.ts';
import { dailyExposures, emptyStats, metricStatistics } from './metric-store.ts';

export const SERVED_KINDS = ['ExperimentQuery', 'ExperimentExposureQuery'] as const;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const STATISTICS_FAILED = 'Unable to calculate experiment statistics. Please ensure your experiment has sufficient data and try again.';

async function experimentOf(db: ReadHandle, projectId: number, query: Json): Promise<{ experiment: ExperimentRecord; flag: FlagRecord }> {
  const id = query.experiment_id;
  if (id === undefined || id === null) throw validationError('experiment_id is required', 'experiment_id');
  const numeric = typeof id === 'number' ? id : typeof id === 'string' && /^\d{1,9}$/.test(id) ? Number(id) : NaN;
  const experiment = Number.isInteger(numeric) && numeric > 0 && numeric <= 2147483647 ? await findExperiment(db, projectId, numeric) : null;
  if (!experiment) throw validationError(`Experiment with id ${pythonStr(id)} not found`, 'experiment_id');
  const flag = await findFlag(db, projectId, experiment.feature_flag_id);
  if (!flag) throw validationError(`Experiment with id ${experiment.id} not found`, 'experiment_id');
  return { experiment, flag };
}

function variantKeys(experiment: ExperimentRecord, flag: FlagRecord): string[] {
  const excluded = new Set(experiment.excluded_variants);
  return (flag.filters.multivariate?.variants ?? []).map((variant) => variant.key).filter((key) => !excluded.has(key));
}

/** The stored metric the query names: by uuid, else by what it computes (its fingerprint). */
function storedMetricFor(experiment: ExperimentRecord, sent: unknown): StoredMetric {
  if (!isObject(sent)) throw validationError('metric is required', 'metric');
  const all = [...experiment.metrics, ...experiment.metrics_secondary];
  const byUuid = typeof sent.uuid === 'string' ? all.find((metric) => metric.uuid === sent.uuid) : undefined;
  if (byUuid) return byUuid;
  parseMetric(sent, 'metric');
  const fingerprint = metricFingerprint(sent, experiment);
  const same = all.find((metric) => metricFingerprint(metric, experiment) === fingerprint);
  if (same) return same;
  throw validationError(
    "This metric is not one of the experiment's metrics: results are kept from ingestion for saved metrics only. Add it to the experiment's metrics or metrics_secondary first.",
    'metric',
  );
}

export async function experimentQuery(deps: ExperimentDeps, projectId: number, query: Json, refresh: boolean): Promise<Json> {
  const { experiment, flag } = await experimentOf(deps.pool, projectId, query);
  const stored = storedMetricFor(experiment, query.metric);
  let analysis;
  try {
    analysis = await metricResults(deps, experiment, flag, stored, refresh);
  } catch (error) {
    if (error instanceof StatisticsError) throw validationError(STATISTICS_FAILED, null);
    throw error;
  }
  return { kind: 'ExperimentQuery', metric: stored, ...analysis, is_precomputed: true };
}

/**
 * One stored metric's analysis, as `ExperimentQuery` serves it and the significance job reads it
 * (cached ≤ 60 s under the experiment's state generation unless `refresh`). Throws StatisticsError
 * when the numbers cannot be analysed.
 */
export async function metricResults(deps: ExperimentDeps, experiment: ExperimentRecord, flag: FlagRecord, stored: StoredMetric, refresh: boolean): Promise<ExperimentMetricResult> {
  const metric = parseMetric(stored, 'metric');
  const handling = exposureRule(experiment.exposure_criteria, flag.key).multipleVariantHandling;
  const keys = variantKeys(experiment, flag);
  const cacheKey = `q:${experiment.id}:${experiment.state_generation}:${stored.uuid}:${stored.fingerprint ?? ''}:${keys.join(',')}`;
  const stats = await deps.results.get(cacheKey, () => metricStatistics(deps.pool, experiment.id, metric, handling), refresh);
  const ofVariant = (key: string): VariantStats => stats.get(key) ?? emptyStats(key, metric);
  const baseKey = baselineKey(keys, experiment.stats_config?.baseline_variant_key) ?? 'control';
  return analyzeMetric(
    metric.metric_type,
    ofVariant(baseKey),
    keys.filter((key) => key !== baseKey).map(ofVariant),
    experiment.stats_config,
  );
}

export async function exposureQuery(deps: ExperimentDeps, projectId: number, query: Json, refresh: boolean): Promise<Json> {
  const { experiment, flag } = await experimentOf(deps.pool, projectId, query);
  const keys = variantKeys(experiment, flag);
  const cacheKey = `x:${experiment.id}:${experiment.state_generation}:${keys.join(',')}`;
  const daily = experiment.start_date === null ? [] : await deps.results.get(cacheKey, () => dailyExposures(deps.pool, experiment.id), refresh);

  const start = experiment.start_date;
  const last = experiment.end_date ?? new Date();
  const days: string[] = [];
  if (start !== null) for (let t = Date.parse(isoDay(start)); t <= last.getTime() && days.length < 3660; t += DAY_MS) days.push(isoDay(new Date(t)));
  const seen = [...new Set(daily.map((row) => row.variant))];
  const order = [...keys, ...seen.filter((key) => !keys.includes(key) && key !== MULTIPLE_VARIANT), ...(seen.includes(MULTIPLE_VARIANT) ? [MULTIPLE_VARIANT] : [])];
  const totals: Record<string, number> = {};
  const timeseries = order
    .filter((variant) => daily.some((row) => row.variant === variant))
    .map((variant) => {
      const perDay = new Map(daily.filter((row) => row.variant === variant).map((row) => [row.day, row.n]));
      let running = 0;
      const counts = days.map((day) => (running += perDay.get(day) ?? 0));
      totals[variant] = running;
      return { variant, days, exposure_counts: counts };
    });

  const percents: Record<string, number> = {};
  for (const variant of flag.filters.multivariate?.variants ?? []) if (keys.includes(variant.key)) percents[variant.key] = variant.rollout_percentage ?? 0;
  const observed: Record<string, number> = {};
  for (const key of keys) observed[key] = totals[key] ?? 0;
  let mismatch: { expected: Record<string, number>; p_value: number } | null = null;
  try {
    const srm = sampleRatioMismatch(observed, percents);
    mismatch = srm === null ? null : { expected: srm.expected, p_value: srm.p_value };
  } catch (error) {
    if (!(error instanceof StatisticsError)) throw error;
  }
  return {
    kind: 'ExperimentExposureQuery',
    date_range: { date_from: isoUtc(start ?? experiment.created_at), date_to: isoUtc(experiment.end_date), explicitDate: true },
    timeseries,
    total_exposures: totals,
    sample_ratio_mismatch: mismatch,
  };
}
