/** Rules over an experiment's fields that need no database: variants, metric lists, orderings, fingerprints, stats_config. */
import { createHash } from 'node:crypto';
import { validationError } from '../kernel/errors.ts';
import { checkMetricList } from './metrics/parse.ts';
import type { ExperimentValues, StoredMetric } from './record.ts';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export interface Variant {
  key: string;
  name?: string | null;
  rollout_percentage: number;
  [extra: string]: unknown;
}

export const DEFAULT_VARIANTS: Variant[] = [
  { key: 'control', name: 'Control Group', rollout_percentage: 50 },
  { key: 'test', name: 'Test Variant', rollout_percentage: 50 },
];

/** `parameters.feature_flag_variants` as sent: fewer than 21, with a `control` when not empty. */
export function variantsOf(parameters: Json | null | undefined): Variant[] {
  const raw = parameters?.feature_flag_variants;
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw validationError('feature_flag_variants must be a list', 'parameters');
  if (raw.length >= 21) throw validationError('Feature flag variants must be less than 21', 'parameters');
  if (raw.length > 0 && !raw.some((variant) => isObject(variant) && variant.key === 'control')) {
    throw validationError('Feature flag variants must contain a control variant', 'parameters');
  }
  return raw as Variant[];
}

/** A flag an experiment may use: at least two variants, `control` first. */
export function flagIneligibility(filters: { multivariate?: { variants?: Array<{ key?: unknown }> } | null } | null): string | null {
  const variants = filters?.multivariate?.variants ?? [];
  if (variants.length < 2) return 'Feature flag is not eligible for experiments.';
  if (variants[0]?.key !== 'control') return 'Feature flag must have control as the first variant.';
  return null;
}

/** Reads `stats_config`; a create without a method gets the default (Bayesian). */
export function statsConfigOf(raw: Json | null | undefined, isCreate: boolean): Json | null {
  if (raw === undefined || raw === null) return isCreate ? { method: 'bayesian' } : null;
  if (isCreate && raw.method === undefined) return { ...raw, method: 'bayesian' };
  return raw;
}

export function statsMethod(config: Json | null): 'bayesian' | 'frequentist' {
  return config?.method === 'frequentist' ? 'frequentist' : 'bayesian';
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const NOT_FINGERPRINTED = new Set(['uuid', 'name', 'kind', 'fingerprint', 'only_count_matured_users']);

/** SHA-256 of what decides a metric's results: the metric itself, the start date, the method, the exposure criteria. */
export function metricFingerprint(metric: Json, values: Pick<ExperimentValues, 'start_date' | 'stats_config' | 'exposure_criteria' | 'excluded_variants'>): string {
  const bare: Json = {};
  for (const [key, value] of Object.entries(metric)) if (!NOT_FINGERPRINTED.has(key)) bare[key] = value;
  if (isObject(bare.breakdownFilter) && Object.keys(bare.breakdownFilter).length === 0) delete bare.breakdownFilter;
  const subject: Json = {
    metric: bare,
    start_date: values.start_date?.toISOString() ?? null,
    stats_method: statsMethod(values.stats_config),
  };
  if (values.exposure_criteria) subject.exposure_criteria = values.exposure_criteria;
  if (values.excluded_variants.length > 0) subject.excluded_variants = [...values.excluded_variants].sort();
  return createHash('sha256').update(canonical(subject)).digest('hex');
}

export function withFingerprints(values: ExperimentValues): ExperimentValues {
  const fingerprinted = (list: StoredMetric[]) => list.map((metric) => ({ ...metric, fingerprint: metricFingerprint(metric, values) }));
  return { ...values, metrics: fingerprinted(values.metrics), metrics_secondary: fingerprinted(values.metrics_secondary) };
}

export function checkedMetrics(raw: unknown, attr: 'metrics' | 'metrics_secondary'): StoredMetric[] {
  return checkMetricList(raw, attr) as StoredMetric[];
}

/**
 * The ordering arrays follow the metric lists: uuids of metrics added now are appended, uuids of
 * removed ones dropped; then every metric must be listed (PostHog's words when not).
 */
export function syncOrdering(
  sent: string[] | null | undefined,
  stored: string[] | null,
  before: StoredMetric[],
  after: StoredMetric[],
  which: 'primary' | 'secondary',
): string[] | null {
  const beforeIds = new Set(before.map((m) => m.uuid));
  const afterIds = new Set(after.map((m) => m.uuid));
  let ordering = sent !== undefined ? sent : stored;
  const added = after.filter((m) => !beforeIds.has(m.uuid)).map((m) => m.uuid);
  if (added.length > 0 || (ordering !== null && ordering.some((id) => !afterIds.has(id)))) {
    const kept = (ordering ?? []).filter((id) => afterIds.has(id));
    ordering = [...kept, ...added.filter((id) => !kept.includes(id))];
  }
  if (after.length === 0) return ordering;
  const field = `${which}_metrics_ordered_uuids`;
  if (ordering === null) {
    throw validationError(`${field} is null but ${which} metrics exist. This is likely a frontend bug - please refresh and try again.`, field);
  }
  const missing = after.map((m) => m.uuid).filter((id) => !ordering.includes(id));
  if (missing.length > 0) {
    throw validationError(
      `${field} is missing UUIDs: [${missing.map((id) => `'${id}'`).join(', ')}]. This is likely a frontend bug - please refresh and try again.`,
      field,
    );
  }
  return ordering;
}
