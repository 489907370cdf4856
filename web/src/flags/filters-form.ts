/**
 * The release-conditions editor's form, and its mapping to and from a flag's `filters`. Pure
 * functions (no DOM), tested by the project's `npm test`: every `filters` the API accepts comes back
 * unchanged from `formToFilters(filtersToForm(filters))`. Fields the editor does not edit are kept
 * in `extra` and written back as they came; a field that was absent stays absent (`undefined`).
 */
import type { FlagFilters } from '../api/types.ts';

type Json = Record<string, unknown>;

export interface PropertyForm {
  /** A key for the UI's list, never sent. */
  uid: string;
  /** person (also when absent), cohort, flag or group. */
  type?: string;
  key: string | number;
  operator?: string | null;
  value?: unknown;
  group_type_index?: number | null;
  negation?: boolean;
  extra: Json;
}

export interface ConditionForm {
  uid: string;
  properties?: PropertyForm[];
  /** null or absent: everyone who matches. */
  rollout_percentage?: number | null;
  variant?: string | null;
  description?: string | null;
  aggregation_group_type_index?: number | null;
  extra: Json;
}

/** A payload as the person types it (JSON text), and the value it was loaded from. */
export interface PayloadForm {
  text: string;
  /** The stored value; written back as it was while the text is unchanged. */
  original?: unknown;
}

export interface VariantForm {
  uid: string;
  key: string;
  name?: string | null;
  rollout_percentage: number;
  payload?: PayloadForm;
  extra: Json;
}

export interface FiltersForm {
  groups?: ConditionForm[];
  /** null or absent: a boolean flag. */
  multivariate?: { variants: VariantForm[]; extra: Json } | null;
  /** The payload of a boolean flag (`payloads.true`). */
  booleanPayload?: PayloadForm;
  /** `payloads` was present (so an empty `{}` comes back). */
  payloadsPresent: boolean;
  /** Payloads under keys that belong to no variant: written back as they came. */
  otherPayloads: Json;
  aggregation_group_type_index?: number | null;
  /** super_groups, holdout_groups and anything else: written back as they came. */
  extra: Json;
}

let uidCounter = 0;
export const newUid = (prefix: string): string => `${prefix}${++uidCounter}`;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumberOrNull = (value: unknown): value is number | null => value === null || typeof value === 'number';
const isStringOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';

/** Moves `key` out of `rest` into the result when `accept` says its value is of the modelled type. */
function take<T>(rest: Json, key: string, accept: (value: unknown) => value is T): T | undefined {
  if (!(key in rest) || !accept(rest[key])) return undefined;
  const value = rest[key] as T;
  delete rest[key];
  return value;
}

/** `target[key] = value` unless value is undefined (absent stays absent). */
function put(target: Json, key: string, value: unknown): void {
  if (value !== undefined) target[key] = value;
}

// ---------------------------------------------------------------------------------------------
// filters → form

/** A property filter as the editor holds it; null when it has no usable key. */
export function propertyToForm(raw: unknown): PropertyForm | null {
  if (!isObject(raw)) return null;
  const rest: Json = { ...raw };
  const key = take(rest, 'key', (v): v is string | number => typeof v === 'string' || typeof v === 'number');
  if (key === undefined) return null;
  return {
    uid: newUid('p'),
    key,
    type: take(rest, 'type', (v): v is string => typeof v === 'string'),
    operator: take(rest, 'operator', isStringOrNull),
    value: 'value' in rest ? take(rest, 'value', (_v): _v is unknown => true) : undefined,
    group_type_index: take(rest, 'group_type_index', isNumberOrNull),
    negation: take(rest, 'negation', (v): v is boolean => typeof v === 'boolean'),
    extra: rest,
  };
}

function conditionToForm(raw: Json): ConditionForm {
  const rest: Json = { ...raw };
  let properties: PropertyForm[] | undefined;
  if (Array.isArray(rest.properties)) {
    const mapped = rest.properties.map(propertyToForm);
    if (mapped.every((property): property is PropertyForm => property !== null)) {
      properties = mapped;
      delete rest.properties;
    }
  }
  return {
    uid: newUid('g'),
    properties,
    rollout_percentage: take(rest, 'rollout_percentage', isNumberOrNull),
    variant: take(rest, 'variant', isStringOrNull),
    description: take(rest, 'description', isStringOrNull),
    aggregation_group_type_index: take(rest, 'aggregation_group_type_index', isNumberOrNull),
    extra: rest,
  };
}

function payloadText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function variantToForm(raw: Json, payloads: Json, claimed: Set<string>): VariantForm | null {
  const rest: Json = { ...raw };
  const key = take(rest, 'key', (v): v is string => typeof v === 'string');
  const rollout = take(rest, 'rollout_percentage', (v): v is number => typeof v === 'number');
  if (key === undefined || rollout === undefined) return null;
  let payload: PayloadForm | undefined;
  if (key in payloads && !claimed.has(key)) {
    claimed.add(key);
    payload = { text: payloadText(payloads[key]), original: payloads[key] };
  }
  return { uid: newUid('v'), key, name: take(rest, 'name', isStringOrNull), rollout_percentage: rollout, payload, extra: rest };
}

export function filtersToForm(filters: FlagFilters | null | undefined): FiltersForm {
  const rest: Json = { ...(filters ?? {}) };
  const payloads = isObject(rest.payloads) ? rest.payloads : null;
  if (payloads) delete rest.payloads;
  const claimed = new Set<string>();

  let groups: ConditionForm[] | undefined;
  if (Array.isArray(rest.groups) && rest.groups.every(isObject)) {
    groups = (rest.groups as Json[]).map(conditionToForm);
    delete rest.groups;
  }

  let multivariate: FiltersForm['multivariate'];
  if (rest.multivariate === null) {
    multivariate = null;
    delete rest.multivariate;
  } else if (isObject(rest.multivariate) && Array.isArray(rest.multivariate.variants)) {
    const { variants: rawVariants, ...multivariateExtra } = rest.multivariate;
    const variants = (rawVariants as unknown[]).map((variant) => (isObject(variant) ? variantToForm(variant, payloads ?? {}, claimed) : null));
    if (variants.every((variant): variant is VariantForm => variant !== null)) {
      multivariate = { variants, extra: multivariateExtra };
      delete rest.multivariate;
    } else {
      for (const key of claimed) claimed.delete(key);
    }
  }

  let booleanPayload: PayloadForm | undefined;
  if (payloads && 'true' in payloads && !claimed.has('true') && !(multivariate && multivariate.variants.length > 0)) {
    claimed.add('true');
    booleanPayload = { text: payloadText(payloads.true), original: payloads.true };
  }
  const otherPayloads: Json = {};
  for (const [key, value] of Object.entries(payloads ?? {})) if (!claimed.has(key)) otherPayloads[key] = value;

  return {
    groups,
    multivariate,
    booleanPayload,
    payloadsPresent: payloads !== null,
    otherPayloads,
    aggregation_group_type_index: take(rest, 'aggregation_group_type_index', isNumberOrNull),
    extra: rest,
  };
}

// ---------------------------------------------------------------------------------------------
// form → filters

export function propertyToFilters(property: PropertyForm): Json {
  const out: Json = { ...property.extra, key: property.key };
  put(out, 'type', property.type);
  put(out, 'operator', property.operator);
  put(out, 'value', property.value);
  put(out, 'group_type_index', property.group_type_index);
  put(out, 'negation', property.negation);
  return out;
}

function conditionToFilters(condition: ConditionForm): Json {
  const out: Json = { ...condition.extra };
  if (condition.properties !== undefined) out.properties = condition.properties.map(propertyToFilters);
  put(out, 'rollout_percentage', condition.rollout_percentage);
  put(out, 'variant', condition.variant);
  put(out, 'description', condition.description);
  put(out, 'aggregation_group_type_index', condition.aggregation_group_type_index);
  return out;
}

/** The value to store for a payload: as loaded while its text is unchanged, else the text (JSON). */
function payloadValue(payload: PayloadForm): unknown {
  if (payload.original !== undefined && payload.text === payloadText(payload.original)) return payload.original;
  return payload.text.trim();
}

const hasPayload = (payload: PayloadForm | undefined): payload is PayloadForm => payload !== undefined && payload.text.trim() !== '';

export function formToFilters(form: FiltersForm): FlagFilters {
  const out: Json = { ...form.extra };
  if (form.groups !== undefined) out.groups = form.groups.map(conditionToFilters);
  const variants = form.multivariate?.variants ?? [];
  if (form.multivariate === null) out.multivariate = null;
  else if (form.multivariate !== undefined) {
    out.multivariate = {
      ...form.multivariate.extra,
      variants: variants.map((variant) => {
        const entry: Json = { ...variant.extra, key: variant.key };
        put(entry, 'name', variant.name);
        entry.rollout_percentage = variant.rollout_percentage;
        return entry;
      }),
    };
  }
  const payloads: Json = { ...form.otherPayloads };
  if (variants.length === 0 && hasPayload(form.booleanPayload)) payloads.true = payloadValue(form.booleanPayload);
  for (const variant of variants) if (hasPayload(variant.payload)) payloads[variant.key] = payloadValue(variant.payload);
  if (form.payloadsPresent || Object.keys(payloads).length > 0) out.payloads = payloads;
  put(out, 'aggregation_group_type_index', form.aggregation_group_type_index);
  return out as FlagFilters;
}
