/** `exposure_criteria`: which events expose a person, how their variant is read, test accounts, multiple variants. */
import { validationError } from '../../kernel/errors.ts';
import { parseSource } from '../metrics/parse.ts';
import type { EventPropertyFilter } from '../metrics/types.ts';

export const FLAG_CALLED = '$feature_flag_called';
export const MULTIPLE_VARIANT = '$multiple';

export interface ExposureRule {
  event: string;
  properties: EventPropertyFilter[];
  /** The event property holding the variant: `$feature_flag_response`, or `$feature/<key>` for a custom event. */
  variantProperty: string;
  /** Only `$feature_flag_called` events are also matched on `$feature_flag`. */
  flagKey: string | null;
  filterTestAccounts: boolean;
  multipleVariantHandling: 'exclude' | 'first_seen';
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks `exposure_criteria` as sent; answers what is stored (null stays null). */
export function checkExposureCriteria(raw: unknown): Json | null {
  if (raw === null || raw === undefined) return null;
  if (!isObject(raw)) throw validationError('Invalid exposure criteria', 'exposure_criteria');
  if (raw.filterTestAccounts !== undefined && typeof raw.filterTestAccounts !== 'boolean') {
    throw validationError('filterTestAccounts must be a boolean', 'exposure_criteria');
  }
  const handling = raw.multiple_variant_handling;
  if (handling !== undefined && handling !== null && handling !== 'exclude' && handling !== 'first_seen') {
    throw validationError('multiple_variant_handling must be "exclude" or "first_seen"', 'exposure_criteria');
  }
  const config = raw.exposure_config;
  if (config !== undefined && config !== null) {
    if (!isObject(config)) throw validationError('Invalid exposure criteria', 'exposure_criteria');
    if (config.kind === 'ActionsNode') throw validationError('Actions as exposure events are not served; use an ExperimentEventExposureConfig.', 'exposure_criteria');
    if (config.kind !== 'ExperimentEventExposureConfig' || typeof config.event !== 'string' || config.event === '') {
      throw validationError('Invalid exposure criteria', 'exposure_criteria');
    }
    parseSource({ kind: 'EventsNode', event: config.event, properties: config.properties }, 'exposure_criteria');
  }
  return raw;
}

/** The rule ingestion applies for an experiment on flag `flagKey`; a missing value means false / exclude / the default event. */
export function exposureRule(criteria: Json | null, flagKey: string): ExposureRule {
  const config = isObject(criteria?.exposure_config) ? criteria.exposure_config : null;
  const custom = config !== null && typeof config.event === 'string' && config.event !== FLAG_CALLED;
  const properties = config === null ? [] : parseSource({ kind: 'EventsNode', event: config.event, properties: config.properties }, 'exposure_criteria').properties;
  return {
    event: custom ? (config.event as string) : FLAG_CALLED,
    properties,
    variantProperty: custom ? `$feature/${flagKey}` : '$feature_flag_response',
    flagKey: custom ? null : flagKey,
    filterTestAccounts: criteria?.filterTestAccounts === true,
    multipleVariantHandling: criteria?.multiple_variant_handling === 'first_seen' ? 'first_seen' : 'exclude',
  };
}
