/** Metrics and their results in words, for lists, rows and screen readers. */
import type { EventsNode, ExperimentMetric, VariantResult } from './types.ts';

const MATH_WORDS: Record<string, string> = { sum: 'Sum', avg: 'Average', min: 'Minimum', max: 'Maximum' };

function eventName(node: EventsNode | undefined): string {
  if (!node) return '?';
  const name = node.event ?? 'any event';
  const filters = node.properties?.length ?? 0;
  return filters > 0 ? `${name} (${filters} filter${filters === 1 ? '' : 's'})` : name;
}

function sourceText(node: EventsNode | undefined): string {
  if (!node) return '?';
  const math = node.math ?? 'total';
  if (math === 'total') return `count of ${eventName(node)}`;
  return `${(MATH_WORDS[math] ?? math).toLowerCase()} of ${node.math_property ?? '?'} on ${eventName(node)}`;
}

export function describeMetric(metric: ExperimentMetric): string {
  if (metric.name) return metric.name;
  if (metric.metric_type === 'funnel') return `Conversion: ${(metric.series ?? []).map(eventName).join(' → ')}`;
  if (metric.metric_type === 'ratio') return `Ratio: ${sourceText(metric.numerator)} / ${sourceText(metric.denominator)}`;
  const text = sourceText(metric.source);
  return `Mean ${text} per user`;
}

export const METRIC_TYPE_LABELS = { mean: 'Mean', funnel: 'Funnel (conversion)', ratio: 'Ratio' } as const;

export const FAILURE_TEXT: Record<string, string> = {
  'not-enough-exposures': 'Not enough exposures (at least 50 per variant)',
  'not-enough-metric-data': 'Not enough conversions (at least 5)',
  'baseline-mean-is-zero': 'The baseline has no metric events yet',
};

export function formatLift(value: number): string {
  const percent = value * 100;
  const digits = Math.abs(percent) < 10 ? 1 : 0;
  return `${percent > 0 ? '+' : ''}${percent.toFixed(digits)}%`;
}

export function formatProbability(value: number): string {
  if (value > 0.999) return '> 99.9%';
  if (value < 0.001) return '< 0.1%';
  return `${(value * 100).toFixed(1)}%`;
}

export function formatPValue(value: number): string {
  return value < 0.0001 ? '< 0.0001' : value.toFixed(4);
}

/** One line for a variant's outcome: "96.1% chance to win · significant", "p 0.031 · not significant". */
export function outcomeText(result: VariantResult): string {
  if (result.validation_failures.length > 0) return 'Not enough data';
  if (result.method === 'bayesian') {
    if (result.chance_to_win === undefined) return 'Not enough data';
    return `${formatProbability(result.chance_to_win)} chance to win · ${result.significant ? 'significant' : 'not significant'}`;
  }
  if (result.p_value === undefined) return 'Not enough data';
  return `p ${formatPValue(result.p_value)} · ${result.significant ? 'significant' : 'not significant'}`;
}
