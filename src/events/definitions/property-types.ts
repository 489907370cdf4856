/** The property types ingestion detects (PostHog's PropertyType, less Duration). */
export type DetectedType = 'String' | 'Numeric' | 'Boolean' | 'DateTime';

// ISO-8601-like: a calendar date, optionally a time (T or space), optional fraction and offset.
const ISO_DATE_TIME =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?:[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)?)?$/;

export function looksLikeDateTime(value: string): boolean {
  return value.length <= 40 && ISO_DATE_TIME.test(value);
}

/** Names whose values are strings whatever was sent: campaign parameters and flag values. */
export function forcedString(name: string): boolean {
  return name.startsWith('utm_') || name.startsWith('$feature/');
}

/**
 * The type a value shows, or null when it shows none (null, objects, arrays, non-finite numbers):
 * ISO-8601-like strings are DateTime, other strings String, numbers Numeric, booleans Boolean;
 * `utm_*` and `$feature/*` are String whatever their scalar value. Numbers are never read as
 * timestamps and numeric strings stay String: a guess from the name would be wrong as often as right.
 */
export function detectPropertyType(name: string, value: unknown): DetectedType | null {
  if (value === null || value === undefined || typeof value === 'object') return null;
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  if (forcedString(name)) return 'String';
  switch (typeof value) {
    case 'boolean':
      return 'Boolean';
    case 'number':
      return 'Numeric';
    case 'string':
      return looksLikeDateTime(value) ? 'DateTime' : 'String';
    default:
      return null;
  }
}
