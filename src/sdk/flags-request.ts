/**
 * What `POST /flags` and `POST /decide` ask, read from the
 * decoded body and the query string. Wrong shapes are 400s naming the field; unknown fields are
 * ignored (SDKs send more than is used here: geoip_disable, timezone, …).
 */
import { requiredField, validationError } from '../kernel/errors.ts';
import type { SubjectInput } from './context.ts';
import type { Runtime, Selection } from './evaluate.ts';

export interface FlagsQuery {
  /** Response version (`v`); null when absent. */
  version: number | null;
  config: boolean;
  onlySurveyFlags: boolean;
}

export interface FlagsRequest {
  input: SubjectInput;
  selection: Selection;
  /** posthog-js `disable_flags`: the config only, no flags. */
  disableFlags: boolean;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A distinct id, group key or token: a non-empty string, or a finite number as its text. */
export function idText(value: unknown): string | null {
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function firstValue(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/** A query flag: bare (`?config`), `true`, `1`, `yes`, `on` are true. */
export function queryFlag(value: unknown): boolean {
  const text = firstValue(value);
  if (text === undefined || text === null) return false;
  if (typeof text === 'boolean') return text;
  return ['', 'true', '1', 'yes', 'on'].includes(String(text).trim().toLowerCase());
}

export function readFlagsQuery(query: Record<string, unknown>): FlagsQuery {
  const rawVersion = firstValue(query.v);
  const version = typeof rawVersion === 'string' && /^\d{1,3}$/.test(rawVersion.trim()) ? Number(rawVersion.trim()) : null;
  return {
    version,
    config: queryFlag(query.config),
    onlySurveyFlags: queryFlag(query.only_evaluate_survey_feature_flags),
  };
}

/** `groups`: group type → key; absent or null is none. */
export function readGroups(value: unknown, attr = 'groups'): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw validationError('Expected an object mapping group types to group keys.', attr);
  const groups: Record<string, string> = {};
  for (const [type, key] of Object.entries(value)) {
    if (key === null || key === undefined) continue;
    const text = idText(key);
    if (text === null) throw validationError(`The key of group type "${type}" must be a string.`, `${attr}__${type}`);
    Object.defineProperty(groups, type, { value: text, enumerable: true, writable: true, configurable: true });
  }
  return groups;
}

function readProperties(value: unknown, attr: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw validationError('Expected an object of properties.', attr);
  return value;
}

function readGroupProperties(value: unknown): Record<string, Record<string, unknown>> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw validationError('Expected an object mapping group types to their properties.', 'group_properties');
  const result: Record<string, Record<string, unknown>> = {};
  for (const [type, properties] of Object.entries(value)) {
    if (properties === null || properties === undefined) continue;
    Object.defineProperty(result, type, {
      value: readProperties(properties, `group_properties__${type}`),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}

function readKeys(value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.some((key) => typeof key !== 'string')) {
    throw validationError('Expected a list of flag keys.', 'flag_keys_to_evaluate');
  }
  return value as string[];
}

function readRuntime(value: unknown): Runtime | null {
  return value === 'server' || value === 'client' ? value : null;
}

function readContexts(value: unknown): string[] | null {
  if (!Array.isArray(value)) return null;
  return value.filter((tag): tag is string => typeof tag === 'string').map((tag) => tag.trim().toLowerCase());
}

/** The rest of the request, read once the token is known (an unknown token is a 401 whatever else is wrong). */
export function readFlagsRequest(payload: unknown, query: FlagsQuery): FlagsRequest {
  if (!isObject(payload)) throw validationError('The request body must be a JSON object.', null);
  const distinctId = idText(payload.distinct_id);
  if (distinctId === null) throw requiredField('distinct_id');
  return {
    disableFlags: payload.disable_flags === true,
    input: {
      distinctId,
      anonDistinctId: idText(payload.$anon_distinct_id),
      deviceId: idText(payload.$device_id) ?? idText(payload.device_id),
      groups: readGroups(payload.groups),
      personProperties: readProperties(payload.person_properties, 'person_properties'),
      groupProperties: readGroupProperties(payload.group_properties),
    },
    selection: {
      onlyKeys: readKeys(payload.flag_keys_to_evaluate),
      runtime: readRuntime(payload.evaluation_runtime),
      evaluationContexts: readContexts(payload.evaluation_contexts ?? payload.evaluation_environments),
      onlySurveyFlags: query.onlySurveyFlags || payload.only_evaluate_survey_feature_flags === true,
    },
  };
}
