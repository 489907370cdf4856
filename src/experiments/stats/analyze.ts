// One metric's results: validate every variant, then compare each test variant with the baseline
// on its own (no multiple-comparison correction, as PostHog does).
import { bayesianCompare } from './bayesian.ts';
import { readStatsConfig } from './config.ts';
import { StatisticsError } from './errors.ts';
import { frequentistCompare } from './frequentist.ts';
import type { BaselineResult, ExperimentMetricResult, MetricType, VariantResult, VariantStats } from './types.ts';
import { validationFailures } from './validation.ts';
import { momentsOf } from './variant.ts';

function finiteNumbers(values: number[]): boolean {
  return values.every((value) => Number.isFinite(value));
}

export function analyzeMetric(
  type: MetricType,
  baseline: VariantStats,
  variants: VariantStats[],
  statsConfig: unknown,
): ExperimentMetricResult {
  const settings = readStatsConfig(statsConfig);
  const baselineResult: BaselineResult = { ...baseline, validation_failures: validationFailures(type, baseline, true) };
  const baselineUsable = baselineResult.validation_failures.length === 0;
  const baselineMoments = baselineUsable ? momentsOf(type, baseline) : null;

  const variantResults = variants.map((variant): VariantResult => {
    const failures = validationFailures(type, variant, false);
    if (settings.method === 'frequentist') {
      const result: VariantResult = { ...variant, method: 'frequentist', validation_failures: failures };
      if (!baselineMoments || failures.length > 0) return result;
      const outcome = frequentistCompare(momentsOf(type, variant), baselineMoments, settings);
      if (!finiteNumbers([outcome.p_value, ...outcome.confidence_interval])) throw new StatisticsError('result is not a number');
      return { ...result, ...outcome };
    }
    const result: VariantResult = { ...variant, method: 'bayesian', validation_failures: failures };
    if (!baselineMoments || failures.length > 0) return result;
    const outcome = bayesianCompare(momentsOf(type, variant), baselineMoments, { ...settings, proportion: type === 'funnel' });
    if (!finiteNumbers([outcome.chance_to_win, ...outcome.credible_interval])) throw new StatisticsError('result is not a number');
    return { ...result, ...outcome };
  });
  return { baseline: baselineResult, variant_results: variantResults };
}

/**
 * The variant every other one is compared with: the configured key when it is a variant, else
 * `control` when present, else the first.
 */
export function baselineKey(variantKeys: string[], configured?: unknown): string | undefined {
  if (typeof configured === 'string' && variantKeys.includes(configured)) return configured;
  return variantKeys.includes('control') ? 'control' : variantKeys[0];
}
