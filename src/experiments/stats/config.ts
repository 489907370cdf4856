// Reading an experiment's stored `stats_config` (any JSON): anything missing, unknown or out of
// range falls back to the default, so a bad configuration can never stop the results.

export type StatsMethod = 'bayesian' | 'frequentist';
export type DifferenceType = 'relative' | 'absolute';

export interface StatsSettings {
  method: StatsMethod;
  /** Bayesian credible level, in (0, 1) */
  ciLevel: number;
  /** frequentist significance level, in (0, 1) */
  alpha: number;
  differenceType: DifferenceType;
}

export const DEFAULT_CI_LEVEL = 0.95;
export const DEFAULT_ALPHA = 0.05;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function levelOr(value: unknown, fallback: number): number {
  // 0 and 1 would give infinite intervals: treated as out of range like the rest.
  return typeof value === 'number' && value > 0 && value < 1 ? value : fallback;
}

function differenceTypeOf(section: Record<string, unknown>): DifferenceType {
  // Stored as the enum's name; anything else (lower case included) means relative.
  return section.difference_type === 'ABSOLUTE' ? 'absolute' : 'relative';
}

export function readStatsConfig(raw: unknown): StatsSettings {
  const config = isRecord(raw) ? raw : {};
  const method: StatsMethod = config.method === 'frequentist' ? 'frequentist' : 'bayesian';
  const bayesian = isRecord(config.bayesian) ? config.bayesian : {};
  const frequentist = isRecord(config.frequentist) ? config.frequentist : {};
  return {
    method,
    ciLevel: levelOr(bayesian.ci_level, DEFAULT_CI_LEVEL),
    alpha: levelOr(frequentist.alpha, DEFAULT_ALPHA),
    differenceType: differenceTypeOf(method === 'frequentist' ? frequentist : bayesian),
  };
}
