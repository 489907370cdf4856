import type { FlagFilters, FlagProperty } from '../../targeting/types.ts';
import { filtersError } from '../../targeting/errors.ts';

const PERSON_FLAG_TYPES: ReadonlySet<unknown> = new Set(['person', 'cohort', 'flag']);

export function allProperties(filters: FlagFilters): FlagProperty[] {
  return (filters.groups ?? []).flatMap((group) => group.properties ?? []);
}

/**
 * Property types against the flag's aggregation: a person flag uses
 * person, cohort and flag properties, its flag properties with `flag_evaluates_to`; a group flag
 * uses group properties of its own group type only. The flag-level index decides, as in V-A.
 */
export function checkPropertyTypes(filters: FlagFilters): void {
  const properties = allProperties(filters);
  const index = filters.aggregation_group_type_index ?? null;
  if (index === null) {
    if (!properties.every((property) => PERSON_FLAG_TYPES.has(property.type))) {
      throw filtersError('Filters are not valid (can only use person, cohort, and flag properties)');
    }
    const flagProperties = properties.filter((property) => property.type === 'flag');
    if (!flagProperties.every((property) => property.operator === 'flag_evaluates_to')) {
      throw filtersError("Flag properties must use the 'flag_evaluates_to' operator");
    }
    return;
  }
  if (!properties.every((property) => property.type === 'group' && property.group_type_index === index)) {
    throw filtersError('Filters are not valid (can only use group properties)');
  }
}
