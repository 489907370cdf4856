/**
 * A cohort's filters as the editor shows them: groups (any one may match) of person-property and
 * cohort filters (all must match) — PostHog's `{properties: {type: 'OR', values: [{type: 'AND',
 * values: [...]}]}}`. Other shapes (behavioral filters, deeper nesting) are shown, not edited. Pure.
 */
import type { CohortGroup } from '../api/types.ts';
import { newUid, propertyToFilters, propertyToForm, type PropertyForm } from '../flags/filters-form.ts';

export interface CohortMatchGroup {
  uid: string;
  properties: PropertyForm[];
}

const EDITABLE_TYPES = new Set(['person', 'cohort']);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The groups, or null when the filters have a shape the editor does not edit. */
export function cohortFiltersToForm(filters: { properties?: CohortGroup } | null | undefined): CohortMatchGroup[] | null {
  const root = filters?.properties;
  if (root === undefined) return [];
  if (!isObject(root) || root.type !== 'OR' || !Array.isArray(root.values) || Object.keys(root).length !== 2) return null;
  const groups: CohortMatchGroup[] = [];
  for (const group of root.values) {
    if (!isObject(group) || group.type !== 'AND' || !Array.isArray(group.values) || Object.keys(group).length !== 2) return null;
    const properties: PropertyForm[] = [];
    for (const raw of group.values) {
      const property = propertyToForm(raw);
      if (!property || !EDITABLE_TYPES.has(property.type ?? 'person')) return null;
      properties.push(property);
    }
    groups.push({ uid: newUid('c'), properties });
  }
  return groups;
}

export function cohortFormToFilters(groups: CohortMatchGroup[]): { properties: CohortGroup } {
  return {
    properties: {
      type: 'OR',
      values: groups.map((group) => ({ type: 'AND', values: group.properties.map(propertyToFilters) as CohortGroup['values'] })),
    },
  };
}
