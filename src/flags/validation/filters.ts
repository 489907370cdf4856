import type { FlagFilters } from '../../targeting/types.ts';
import { checkFlagDependencies } from './dependencies.ts';
import { filtersError } from '../../targeting/errors.ts';
import type { FilterValidationContext } from './lookup.ts';
import { checkVariantOverrides, checkVariantSum, parseMultivariate } from './multivariate.ts';
import { normalizePayloads } from './payloads.ts';
import { checkProperty } from './properties.ts';
import { checkPropertyTypes } from './property-types.ts';
import { parseFiltersStructure } from './structure.ts';

/**
 * Validates `filters` as sent (structure first, then PostHog's rules: properties, variants,
 * dependencies, payloads, in that order) and returns the filters to store: operator aliases rewritten, payload values JSON strings,
 * unknown keys kept. Throws the first error, always on attr `filters`.
 *
 * The PATCH quirk (filters without `groups` are ignored) is the caller's: call this only when the
 * filters are to be validated and stored.
 */
export async function validateFilters(raw: unknown, ctx: FilterValidationContext): Promise<FlagFilters> {
  const filters = parseFiltersStructure(raw);
  const multivariate = parseMultivariate(filters.multivariate);
  if (multivariate !== undefined) filters.multivariate = multivariate;
  const variants = multivariate?.variants ?? [];
  const groups = filters.groups ?? [];

  if (ctx.isCreate && groups.length === 0) {
    throw filtersError('Feature flags must have at least one condition set (group).');
  }
  checkPropertyTypes(filters);
  await checkFlagDependencies(filters, ctx);
  checkVariantSum(variants);
  checkVariantOverrides(groups, variants);
  for (const group of groups) {
    for (const property of group.properties ?? []) await checkProperty(property, ctx.lookup);
  }
  if (filters.payloads !== undefined) filters.payloads = normalizePayloads(filters.payloads, variants);
  return filters;
}
