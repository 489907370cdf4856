import { requiredField, validationError } from '../../kernel/errors.ts';
import { isQueryTrue, parseQueryBoolean } from '../../kernel/http/drf-boolean.ts';
import { jsonNameList, nameList, searchTerms } from '../taxonomy/params.ts';
import type { PropertyDefinitionListQuery } from './schemas.ts';

export const TYPE_NUMBERS = { event: 1, person: 2, group: 3 } as const;
export type PropertyKind = keyof typeof TYPE_NUMBERS;
export const KIND_OF_NUMBER: Record<number, PropertyKind> = { 1: 'event', 2: 'person', 3: 'group' };

export interface PropertyListFilter {
  type: 1 | 2 | 3;
  groupTypeIndex: number | null;
  searchTerms: string[];
  /** null: not asked; is_seen_on_filtered_events stays null. */
  eventNames: string[] | null;
  filterByEventNames: boolean;
  names: string[];
  isNumerical: boolean | null;
  isFeatureFlag: boolean | null;
  excludedNames: string[];
  excludeHidden: boolean;
  excludeCore: boolean;
}

const optionalBool = (raw: string | undefined): boolean | null => parseQueryBoolean(raw) ?? null;

export function decodePropertyListQuery(query: PropertyDefinitionListQuery): PropertyListFilter {
  const kind = query.type ?? 'event';
  if (!(kind in TYPE_NUMBERS)) {
    throw validationError(`"${kind}" is not a valid choice.`, 'type', 'invalid_choice');
  }
  const type = TYPE_NUMBERS[kind as PropertyKind];
  if (type === 3 && query.group_type_index === undefined) throw requiredField('group_type_index');
  const eventNames = query.event_names === undefined ? null : jsonNameList(query.event_names, 'event_names');
  return {
    type,
    groupTypeIndex: type === 3 ? (query.group_type_index as number) : null,
    searchTerms: searchTerms(query.search),
    eventNames: type === 1 ? eventNames : null,
    filterByEventNames: type === 1 && eventNames !== null && isQueryTrue(query.filter_by_event_names),
    names: nameList(query.properties === undefined ? undefined : [query.properties]),
    isNumerical: optionalBool(query.is_numerical),
    isFeatureFlag: optionalBool(query.is_feature_flag),
    excludedNames: jsonNameList(query.excluded_properties, 'excluded_properties'),
    excludeHidden: isQueryTrue(query.exclude_hidden),
    excludeCore: isQueryTrue(query.exclude_core_properties),
  };
}
