import type { FlagFilters, FlagGroup, FlagVariant } from '../../targeting/types.ts';
import { filtersError } from '../../targeting/errors.ts';
import { isFiniteNumber, isPlainObject } from './values.ts';
import { invalidVariants } from '../errors.ts';

type Multivariate = NonNullable<FlagFilters['multivariate']>;

const SUM_TOLERANCE = 0.01;

/**
 * Structure of `filters.multivariate`: null, or an object whose `variants` is a list of objects,
 * each with a non-empty string key (unique) and a `rollout_percentage` number in [0, 100].
 * Returns a copy (unknown keys kept); undefined when the key was absent.
 */
export function parseMultivariate(raw: unknown): Multivariate | null | undefined {
  if (raw === undefined || raw === null) return raw;
  if (!isPlainObject(raw) || !Array.isArray(raw.variants)) {
    throw invalidVariants('multivariate must be an object with a list of variants.');
  }
  const seen = new Set<string>();
  const variants = raw.variants.map((variant, i): FlagVariant => {
    const n = i + 1;
    if (!isPlainObject(variant)) throw invalidVariants(`variant ${n} must be an object.`);
    const { key, rollout_percentage: rollout } = variant;
    if (typeof key !== 'string' || key === '') throw invalidVariants(`variant ${n} needs a non-empty string key.`);
    if (seen.has(key)) throw invalidVariants(`variant keys must be unique ('${key}' appears more than once).`);
    seen.add(key);
    if (!isFiniteNumber(rollout) || rollout < 0 || rollout > 100) {
      throw invalidVariants(`variant '${key}' needs a rollout_percentage between 0 and 100.`);
    }
    if (variant.name !== undefined && variant.name !== null && typeof variant.name !== 'string') {
      throw invalidVariants(`variant '${key}' name must be a string or null.`);
    }
    return { ...variant, key, rollout_percentage: rollout };
  });
  return { ...raw, variants };
}

/** Variant percentages add up to 100, within ±0.01 (the tolerance of PostHog's newest validation). */
export function checkVariantSum(variants: FlagVariant[]): void {
  if (variants.length === 0) return;
  const sum = variants.reduce((total, variant) => total + variant.rollout_percentage, 0);
  if (Math.abs(sum - 100) > SUM_TOLERANCE + 1e-9) throw invalidVariants('Variant rollout percentages must sum to 100.');
}

/** A condition's `variant` override names an existing variant (rule 7; an empty string means none). */
export function checkVariantOverrides(groups: FlagGroup[], variants: FlagVariant[]): void {
  const keys = new Set(variants.map((variant) => variant.key));
  for (const group of groups) {
    if (group.variant && !keys.has(group.variant)) {
      throw filtersError('Filters are not valid (variant override does not exist)');
    }
  }
}
