/**
 * A scheduled change's payload as a flag edit: the same partial update a PATCH of the flag sends,
 * built against the flag as it is when the change runs (not as it was when it was scheduled).
 */
import { displayFilters } from '../flags/derive.ts';
import type { FlagRecord } from '../flags/record.ts';
import type { FlagWriteBody } from '../flags/schemas.ts';
import type { FlagGroup, FlagVariant } from '../targeting/types.ts';
import { PermanentChangeError } from './failure.ts';

export const OPERATIONS = ['update_status', 'add_release_condition', 'update_variants'] as const;

/** The values DRF's BooleanField accepts. */
const TRUE_VALUES = new Set<unknown>([true, 1, '1', 'true', 'True', 'TRUE', 't', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON']);
const FALSE_VALUES = new Set<unknown>([false, 0, '0', 'false', 'False', 'FALSE', 'f', 'F', 'n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF']);

function asBoolean(value: unknown): boolean {
  if (TRUE_VALUES.has(value)) return true;
  if (FALSE_VALUES.has(value)) return false;
  throw new PermanentChangeError('Must be a valid boolean.');
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Python's rendering of a set of strings (sorted here, so the text is stable). */
const pythonSet = (keys: string[]) => `{${[...keys].sort().map((k) => `'${k}'`).join(', ')}}`;

function variantsUpdate(flag: FlagRecord, value: Record<string, unknown>): FlagWriteBody {
  const variants = Array.isArray(value.variants) ? (value.variants as FlagVariant[]) : [];
  const payloads = isObject(value.payloads) ? value.payloads : {};
  if (variants.length > 0) {
    const sum = variants.reduce((total, v) => total + (isObject(v) && typeof v.rollout_percentage === 'number' ? v.rollout_percentage : 0), 0);
    if (sum !== 100) throw new PermanentChangeError(`Invalid variant rollout percentages: sum is ${sum}, must be 100`);
  }
  const variantKeys = variants.map((v) => (isObject(v) ? String(v.key) : ''));
  const payloadKeys = Object.keys(payloads);
  if (variantKeys.length > 0 && payloadKeys.length > 0 && payloadKeys.some((k) => !variantKeys.includes(k))) {
    throw new PermanentChangeError(`Payload keys ${pythonSet(payloadKeys)} don't match variant keys ${pythonSet(variantKeys)}`);
  }
  const filters = displayFilters(flag.filters);
  return { filters: { ...filters, multivariate: { ...(filters.multivariate ?? {}), variants }, payloads } };
}

/** The flag edit `payload` asks for, or a permanent error saying why there is none. */
export function flagEditFor(flag: FlagRecord, payload: unknown): FlagWriteBody {
  if (!isObject(payload) || !('operation' in payload) || !('value' in payload)) throw new PermanentChangeError('Invalid payload');
  const { operation, value } = payload;
  switch (operation) {
    case 'update_status':
      return { active: asBoolean(value) };
    case 'add_release_condition': {
      const added = isObject(value) && Array.isArray(value.groups) ? (value.groups as FlagGroup[]) : [];
      const filters = displayFilters(flag.filters);
      return { filters: { ...filters, groups: [...(filters.groups ?? []), ...added] } };
    }
    case 'update_variants':
      if (!isObject(value)) throw new PermanentChangeError('Invalid payload');
      return variantsUpdate(flag, value);
    default:
      throw new PermanentChangeError(`Unrecognized operation: ${String(operation)}`);
  }
}

/** The operation named by a payload, when it has one. */
export function operationOf(payload: unknown): string | null {
  return isObject(payload) && typeof payload.operation === 'string' ? payload.operation : null;
}
