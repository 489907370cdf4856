/**
 * How property values turn into text and truth values for the operators. posthog-node and
 * PostHog's flags service use two different spellings, and each operator uses one of them:
 *
 * - `jsonText`: strings as they are, anything else as compact JSON with object keys sorted by code
 *   point (the flags service's `to_string`); used by `exact` / `is_not`. JSON cannot tell `5` from
 *   `5.0` once parsed, so integers read as `5`.
 * - `looseText`: JavaScript's `String(value)`; posthog-node uses it for `icontains`, `regex` and the
 *   string comparison of `gt`/`lt`, so `[1,2]` reads `1,2` and `null` reads `null`.
 */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function compareCodePoints(a: string, b: string): number {
  const left = Array.from(a);
  const right = Array.from(b);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const diff = left[i].codePointAt(0)! - right[i].codePointAt(0)!;
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}

function jsonSpelling(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map((item) => jsonSpelling(item)).join(',')}]`;
  if (typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object)
      .filter((key) => object[key] !== undefined)
      .sort(compareCodePoints);
    return `{${keys.map((key) => `${JSON.stringify(key)}:${jsonSpelling(object[key])}`).join(',')}}`;
  }
  return JSON.stringify(looseText(value));
}

export function jsonText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  return jsonSpelling(value);
}

/**
 * `String(value)` as JavaScript spells plain JSON values (`[1,2]` → `1,2`, `{}` → `[object Object]`),
 * without calling anything the value holds: a stored object such as `{"toString": "x"}` is data,
 * and `String` on it throws.
 */
export function looseText(value: unknown): string {
  if (value === null || typeof value !== 'object') return String(value);
  if (value instanceof Date) return String(value);
  if (Array.isArray(value)) return value.map((item) => (item === null || item === undefined ? '' : looseText(item))).join(',');
  return '[object Object]';
}

/** Lower-cases A–Z only, as the flags service and posthog-node do for substring operators. */
export function asciiLower(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 65 && code <= 90) return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
  }
  return text;
}

/** `true`, `false`, `"True"`, `"FALSE"`, or a list made only of those (an empty list counts). */
export function isBooleanLike(value: unknown): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    return lower === 'true' || lower === 'false';
  }
  return Array.isArray(value) && value.every(isBooleanLike);
}

/** `true`, `"true"` in any case, or a list of only those. Everything else is not truthy. */
export function isTruthyValue(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.toLowerCase() === 'true';
  return Array.isArray(value) && value.every(isTruthyValue);
}

/** A number the way posthog-node reads one for `gt`/`lt`: numbers as they are, else `parseFloat` of the text. */
export function looseNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number.parseFloat(looseText(value));
}
