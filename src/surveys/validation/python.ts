/** How PostHog's Python sees JSON values, where its rules depend on it. */

export { isPlainObject, pythonStr, pythonTypeName, type JsonObject } from '../../flags/validation/values.ts';

/** Python's truthiness: None, False, 0, "", [] and {} are false. PostHog's `if value:` checks read it. */
export function isTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/** Absent or JSON null: the "not given" of PostHog's `value is None` / `.get(...)` checks. */
export const isMissing = (value: unknown): value is null | undefined => value === null || value === undefined;
