/** Helpers for looking at JSON values the way PostHog's (Python) error messages describe them. */

export type JsonObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export { pythonStr, pythonTypeName } from '../../kernel/http/python-types.ts';

/** A value inside an error message: strings as they are, anything else as JSON shows it (`5`, `true`, `[1,2]`). */
export function displayValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return 'null';
  return JSON.stringify(value);
}

/** A finite JSON number (booleans and numeric strings are not numbers). */
export function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
