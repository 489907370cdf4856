/** What one person adds to a metric's per-variant sums, from their stored aggregate: the one reading for ingestion and queries. */
import type { EventSource, ParsedMetric } from '../metrics/types.ts';
import { MULTIPLE_VARIANT } from './criteria.ts';
import type { SumsDelta } from './state-store.ts';

export interface UnitValues {
  num: number;
  numCount: number;
  den: number;
  denCount: number;
  step: number;
}

export const NO_EVENTS: UnitValues = { num: 0, numCount: 0, den: 0, denCount: 0, step: 0 };

function sourceValue(source: EventSource, value: number, count: number): number {
  if (count === 0) return 0;
  return source.math === 'avg' ? value / count : value;
}

export interface Contribution {
  x: number;
  d: number;
  steps: number[];
}

export function contributionOf(metric: ParsedMetric, unit: UnitValues): Contribution {
  switch (metric.metric_type) {
    case 'mean':
      return { x: sourceValue(metric.source, unit.num, unit.numCount), d: 0, steps: [] };
    case 'ratio':
      return { x: sourceValue(metric.numerator, unit.num, unit.numCount), d: sourceValue(metric.denominator, unit.den, unit.denCount), steps: [] };
    case 'funnel':
      return { x: unit.step >= metric.series.length ? 1 : 0, d: 0, steps: metric.series.map((_, i) => (unit.step >= i + 1 ? 1 : 0)) };
  }
}

/** The variant a person counts in: their first variant, or `$multiple` when several were seen and such persons are excluded. */
export function effectiveVariant(exposure: { firstVariant: string; multiple: boolean }, handling: 'exclude' | 'first_seen'): string {
  return handling === 'exclude' && exposure.multiple ? MULTIPLE_VARIANT : exposure.firstVariant;
}

/** Deltas gathered per (experiment, metric, variant) before one write. */
export class SumsDeltas {
  private readonly byKey = new Map<string, SumsDelta>();

  /** `sign` +1 adds the person's contribution (and one sample when `counted`), −1 takes it away. */
  add(experimentId: number, metric: ParsedMetric, variant: string, contribution: Contribution, sign: 1 | -1, counted: boolean): void {
    const key = `${experimentId}\u0000${metric.uuid}\u0000${variant}`;
    let delta = this.byKey.get(key);
    if (!delta) {
      delta = { experimentId, metricUuid: metric.uuid, variant, n: 0, s: 0, q: 0, ds: 0, dq: 0, p: 0, steps: metric.metric_type === 'funnel' ? metric.series.map(() => 0) : [] };
      this.byKey.set(key, delta);
    }
    const { x, d, steps } = contribution;
    if (counted) delta.n += sign;
    delta.s += sign * x;
    delta.q += sign * x * x;
    delta.ds += sign * d;
    delta.dq += sign * d * d;
    delta.p += sign * x * d;
    steps.forEach((step, i) => (delta.steps[i] += sign * step));
  }

  /** The person's contribution moves from `before` to `after` (same variant, same sample). */
  change(experimentId: number, metric: ParsedMetric, variant: string, before: Contribution, after: Contribution): void {
    this.add(experimentId, metric, variant, before, -1, false);
    this.add(experimentId, metric, variant, after, 1, false);
  }

  list(): SumsDelta[] {
    return [...this.byKey.values()].filter((d) => d.n !== 0 || d.s !== 0 || d.q !== 0 || d.ds !== 0 || d.dq !== 0 || d.p !== 0 || d.steps.some((s) => s !== 0));
  }
}
