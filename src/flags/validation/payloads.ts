import type { FlagVariant } from '../../targeting/types.ts';
import { filtersError } from '../../targeting/errors.ts';
import { isPlainObject } from './values.ts';

/**
 * `filters.payloads`: a dict whose values are stored as JSON strings. A string
 * must already be valid JSON; any other JSON value is encoded (V-B). Keys are variant keys on a
 * multivariate flag, else at most the single key "true". Returns the normalised copy.
 */
export function normalizePayloads(raw: unknown, variants: FlagVariant[]): Record<string, string> {
  if (!isPlainObject(raw)) throw filtersError('Payloads must be passed as a dictionary');
  const payloads: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value === 'string') {
      if (!isJson(value)) throw filtersError('Payload value is not valid JSON');
      payloads[key] = value;
    } else {
      payloads[key] = JSON.stringify(value);
    }
  }
  const keys = Object.keys(payloads);
  if (variants.length > 0) {
    const variantKeys = new Set(variants.map((variant) => variant.key));
    if (!keys.every((key) => variantKeys.has(key))) {
      throw filtersError('Payload keys must match a variant key for multivariate flags');
    }
  } else if (keys.length > 1 || keys.some((key) => key !== 'true')) {
    throw filtersError("Payload keys must be 'true' for boolean flags");
  }
  return payloads;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
