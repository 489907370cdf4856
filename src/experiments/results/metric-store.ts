/**
 * Per-variant sufficient statistics of one metric, read from the ingestion-time state (never
 * from the events): one grouped pass over the experiment's exposures joined to the metric's
 * per-person aggregates.
 */
import type { ReadHandle } from '../../db/pool.ts';
import { MULTIPLE_VARIANT } from '../exposure/criteria.ts';
import type { EventSource, ParsedMetric } from '../metrics/types.ts';
import type { VariantStats } from '../stats/index.ts';

function valueOf(source: EventSource, value: string, count: string): string {
  if (source.math === 'avg') return `CASE WHEN ${count} > 0 THEN ${value} / ${count} ELSE 0 END`;
  return `coalesce(${value}, 0)`;
}

interface Row {
  variant: string;
  n: string;
  s: number | null;
  q: number | null;
  ds: number | null;
  dq: number | null;
  p: number | null;
  steps: string[] | null;
}

/**
 * The sufficient statistics from the running sums kept at ingestion: a few rows per variant,
 * whatever the number of persons. Metrics with percentile bounds (their clamp depends on every
 * person's value) are computed from the per-person rows instead (`scanMetricStatistics`).
 */
export async function metricStatistics(
  db: ReadHandle,
  experimentId: number,
  metric: ParsedMetric,
  multipleHandling: 'exclude' | 'first_seen',
): Promise<Map<string, VariantStats>> {
  if (metric.metric_type === 'mean' && (metric.lower_bound_percentile !== null || metric.upper_bound_percentile !== null)) {
    return scanMetricStatistics(db, experimentId, metric, multipleHandling);
  }
  const { rows } = await db.query<{ variant: string; n: string; s: number; q: number; ds: number; dq: number; p: number; steps: string[] }>(
    'SELECT variant, n, s, q, ds, dq, p, steps FROM experiment_metric_sums WHERE experiment_id = $1 AND metric_uuid = $2 AND variant <> $3',
    [experimentId, metric.uuid, MULTIPLE_VARIANT],
  );
  const result = new Map<string, VariantStats>();
  for (const row of rows) {
    const stats = result.get(row.variant) ?? emptyStats(row.variant, metric);
    stats.number_of_samples += Number(row.n);
    stats.sum += row.s;
    stats.sum_squares += row.q;
    if (stats.step_counts) row.steps.forEach((step, i) => ((stats.step_counts as number[])[i] += Number(step)));
    if (metric.metric_type === 'ratio') {
      stats.denominator_sum = (stats.denominator_sum ?? 0) + row.ds;
      stats.denominator_sum_squares = (stats.denominator_sum_squares ?? 0) + row.dq;
      stats.numerator_denominator_sum_product = (stats.numerator_denominator_sum_product ?? 0) + row.p;
    }
    result.set(row.variant, stats);
  }
  return result;
}

/** The same numbers from the per-person rows: one grouped pass over the exposures joined to the metric's aggregates. */
export async function scanMetricStatistics(
  db: ReadHandle,
  experimentId: number,
  metric: ParsedMetric,
  multipleHandling: 'exclude' | 'first_seen',
): Promise<Map<string, VariantStats>> {
  const params: unknown[] = [experimentId, metric.uuid, MULTIPLE_VARIANT, multipleHandling];
  let value = '0::float8';
  let denominator = '0::float8';
  let steps = 'NULL::bigint[]';
  switch (metric.metric_type) {
    case 'mean':
      value = valueOf(metric.source, 'm.num', 'm.num_count');
      break;
    case 'ratio':
      value = valueOf(metric.numerator, 'm.num', 'm.num_count');
      denominator = valueOf(metric.denominator, 'm.den', 'm.den_count');
      break;
    case 'funnel': {
      const n = metric.series.length;
      value = `CASE WHEN coalesce(m.step, 0) >= ${n} THEN 1 ELSE 0 END`;
      steps = `ARRAY[${metric.series.map((_, i) => `count(*) FILTER (WHERE u.step >= ${i + 1})`).join(', ')}]`;
      break;
    }
  }
  let clamped = 'u.v';
  let bounds = '';
  if (metric.metric_type === 'mean' && (metric.lower_bound_percentile !== null || metric.upper_bound_percentile !== null)) {
    const lower = metric.lower_bound_percentile === null ? 'NULL::float8' : `percentile_cont($${params.push(metric.lower_bound_percentile)}::float8) WITHIN GROUP (ORDER BY v)`;
    const upperFilter = metric.ignore_zeros ? 'FILTER (WHERE v <> 0)' : '';
    const upper = metric.upper_bound_percentile === null ? 'NULL::float8' : `percentile_cont($${params.push(metric.upper_bound_percentile)}::float8) WITHIN GROUP (ORDER BY v) ${upperFilter}`;
    bounds = `, bounds AS (SELECT ${lower} AS lo, ${upper} AS hi FROM units)`;
    clamped = 'least(greatest(u.v, coalesce(b.lo, u.v)), coalesce(b.hi, u.v))';
  }
  const { rows } = await db.query<Row>(
    `WITH units AS (
       SELECT CASE WHEN $4 = 'first_seen' OR NOT x.multiple THEN x.first_variant ELSE $3 END AS variant,
              (${value})::float8 AS v, (${denominator})::float8 AS d, coalesce(m.step, 0) AS step
         FROM experiment_exposures x
         LEFT JOIN experiment_metric_units m ON m.experiment_id = x.experiment_id AND m.metric_uuid = $2 AND m.person_id = x.person_id
        WHERE x.experiment_id = $1
     )${bounds}, clamped AS (
       SELECT u.variant, ${clamped} AS v, u.d, u.step FROM units u ${bounds ? 'CROSS JOIN bounds b' : ''} WHERE u.variant <> $3
     )
     SELECT u.variant, count(*) AS n, sum(u.v) AS s, sum(u.v * u.v) AS q, sum(u.d) AS ds, sum(u.d * u.d) AS dq, sum(u.v * u.d) AS p,
            ${steps} AS steps
       FROM clamped u GROUP BY u.variant`,
    params,
  );
  const result = new Map<string, VariantStats>();
  for (const row of rows) {
    const stats: VariantStats = { key: row.variant, number_of_samples: Number(row.n), sum: row.s ?? 0, sum_squares: row.q ?? 0 };
    if (metric.metric_type === 'funnel') stats.step_counts = (row.steps ?? []).map(Number);
    if (metric.metric_type === 'ratio') {
      stats.denominator_sum = row.ds ?? 0;
      stats.denominator_sum_squares = row.dq ?? 0;
      stats.numerator_denominator_sum_product = row.p ?? 0;
    }
    result.set(row.variant, stats);
  }
  return result;
}

/** An absent variant: no exposed units. */
export function emptyStats(key: string, metric: ParsedMetric): VariantStats {
  const stats: VariantStats = { key, number_of_samples: 0, sum: 0, sum_squares: 0 };
  if (metric.metric_type === 'funnel') stats.step_counts = metric.series.map(() => 0);
  if (metric.metric_type === 'ratio') Object.assign(stats, { denominator_sum: 0, denominator_sum_squares: 0, numerator_denominator_sum_product: 0 });
  return stats;
}

/** Newly exposed units per variant per UTC day (persons seen in several variants as `$multiple` when they are excluded), from the sums kept at ingestion. */
export async function dailyExposures(db: ReadHandle, experimentId: number): Promise<Array<{ variant: string; day: string; n: number }>> {
  const { rows } = await db.query<{ variant: string; day: string; n: string }>(
    `SELECT variant, to_char(day, 'YYYY-MM-DD') AS day, sum(n) AS n
       FROM experiment_exposure_days WHERE experiment_id = $1 GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 2`,
    [experimentId],
  );
  return rows.map((row) => ({ variant: row.variant, day: row.day, n: Number(row.n) }));
}
