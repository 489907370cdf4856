/** One metric's results: a row per variant with its value, lift and interval, chance to win or p-value, significance. */
import type { UseQueryResult } from '@tanstack/react-query';
import { errorMessage } from '../api/errors.ts';
import { formatCount } from '../lib/format.ts';
import { Badge } from '../ui/Badge.tsx';
import { Notice, Spinner } from '../ui/Feedback.tsx';
import { LiftInterval, scaleFor } from './LiftInterval.tsx';
import { describeMetric, FAILURE_TEXT, formatLift, formatPValue, formatProbability } from './metric-text.ts';
import type { BaselineResult, ExperimentMetric, MetricResult, VariantResult } from './types.ts';

type Stats = BaselineResult | VariantResult;

function valueOf(metric: ExperimentMetric, stats: Stats): string {
  if (stats.number_of_samples === 0) return '—';
  if (metric.metric_type === 'funnel') return `${((stats.sum / stats.number_of_samples) * 100).toFixed(2)}%`;
  if (metric.metric_type === 'ratio') return stats.denominator_sum ? (stats.sum / stats.denominator_sum).toFixed(3) : '—';
  return (stats.sum / stats.number_of_samples).toFixed(3);
}

function intervalOf(result: VariantResult): [number, number] | undefined {
  return result.method === 'bayesian' ? result.credible_interval : result.confidence_interval;
}

function formatDifference(value: number, relative: boolean): string {
  if (relative) return formatLift(value);
  return `${value > 0 ? '+' : ''}${value.toPrecision(3)}`;
}

function Failures({ stats }: { stats: Stats }) {
  return (
    <span className="muted small">
      Not enough data{stats.validation_failures.length ? `: ${stats.validation_failures.map((code) => FAILURE_TEXT[code] ?? code).join('; ')}` : ''}
    </span>
  );
}

export function MetricResults({ metric, query, relative, label }: { metric: ExperimentMetric; query: UseQueryResult<MetricResult>; relative: boolean; label: string }) {
  const title = describeMetric(metric);
  return (
    <section className="metric-result" aria-label={`${label}: ${title}`}>
      <header className="metric-result-header">
        <span className="muted small">{label}</span>
        <h3>{title}</h3>
      </header>
      {query.isPending ? <Spinner label="Computing the results…" /> : null}
      {query.isError ? <Notice tone="warning">{errorMessage(query.error)}</Notice> : null}
      {query.data ? <ResultRows metric={metric} result={query.data} relative={relative} /> : null}
    </section>
  );
}

function ResultRows({ metric, result, relative }: { metric: ExperimentMetric; result: MetricResult; relative: boolean }) {
  const baselineFailed = result.baseline.validation_failures.length > 0;
  const intervals = result.variant_results.map(intervalOf).filter((interval): interval is [number, number] => interval !== undefined);
  const scale = scaleFor(intervals);
  const method = result.variant_results[0]?.method ?? 'bayesian';
  return (
    <div className="table-wrap">
      <table className="table compact result-table">
        <thead>
          <tr>
            <th scope="col">Variant</th>
            <th scope="col" className="align-end">Exposed</th>
            <th scope="col" className="align-end">Value</th>
            <th scope="col">{relative ? 'Lift' : 'Difference'} and {method === 'bayesian' ? 'credible' : 'confidence'} interval</th>
            <th scope="col">{method === 'bayesian' ? 'Chance to win' : 'p-value'}</th>
            <th scope="col">Significance</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">
              {result.baseline.key} <span className="muted small">baseline</span>
            </th>
            <td className="align-end" data-label="Exposed">{formatCount(result.baseline.number_of_samples)}</td>
            <td className="align-end" data-label="Value">{valueOf(metric, result.baseline)}</td>
            <td colSpan={3} className="result-wide-cell">{baselineFailed ? <Failures stats={result.baseline} /> : <span className="muted small">Every variant is compared with this one.</span>}</td>
          </tr>
          {result.variant_results.map((variant) => {
            const interval = intervalOf(variant);
            const computed = interval !== undefined && variant.significant !== undefined;
            const mid = interval ? (interval[0] + interval[1]) / 2 : 0;
            const winning = mid > 0;
            const tone = !computed || !variant.significant ? 'neutral' : winning ? 'win' : 'lose';
            return (
              <tr key={variant.key}>
                <th scope="row">{variant.key}</th>
                <td className="align-end" data-label="Exposed">{formatCount(variant.number_of_samples)}</td>
                <td className="align-end" data-label="Value">{valueOf(metric, variant)}</td>
                {computed && interval ? (
                  <>
                    <td className="result-wide-cell">
                      <div className="lift-cell">
                        <span className={`lift-number lift-${tone}`}>{formatDifference(mid, relative)}</span>
                        <LiftInterval
                          interval={interval}
                          scale={scale}
                          tone={tone}
                          label={`${formatDifference(mid, relative)}, interval ${formatDifference(interval[0], relative)} to ${formatDifference(interval[1], relative)}`}
                        />
                        <span className="muted small nowrap">
                          [{formatDifference(interval[0], relative)}, {formatDifference(interval[1], relative)}]
                        </span>
                      </div>
                    </td>
                    <td data-label={variant.method === 'bayesian' ? 'Chance to win' : 'p-value'}>
                      {variant.method === 'bayesian' ? formatProbability(variant.chance_to_win ?? 0) : formatPValue(variant.p_value ?? 1)}
                    </td>
                    <td data-label="Significance">
                      {variant.significant ? (
                        <Badge tone={winning ? 'success' : 'danger'}>{winning ? 'Significant win' : 'Significant loss'}</Badge>
                      ) : (
                        <Badge>Not significant</Badge>
                      )}
                    </td>
                  </>
                ) : (
                  <td colSpan={3} className="result-wide-cell">
                    <Failures stats={baselineFailed && variant.validation_failures.length === 0 ? result.baseline : variant} />
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
