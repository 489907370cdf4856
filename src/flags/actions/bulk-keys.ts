/**
 * `POST bulk_keys`: `{"ids": [...]}` → `{"keys": {"<id>": "<key>"}}` for the live flags of the
 * project. Integers and strings of digits are ids; anything else (a JSON `true`
 * included, which Python would read as 1) is ignored with a warning, and a request whose ids are
 * all invalid is a 400 in PostHog's `{"error": ...}` shape.
 */
import type { ReadHandle } from '../../db/pool.ts';
import { RawErrorResponse } from '../../kernel/errors.ts';
import { liveFlagKeys } from './store.ts';

const INT32_MAX = 2147483647;

export interface BulkKeysResult {
  keys: Record<string, string>;
  warning?: string;
}

function flagIdOf(value: unknown): number | null {
  // Any JSON integer is an id (a negative one names no flag); booleans are not numbers here.
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string' && /^\d+$/.test(value)) {
    const id = Number(value);
    return Number.isSafeInteger(id) ? id : null;
  }
  return null;
}

/** Python's `repr` of a JSON value, as PostHog's warning prints the ignored ids. */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const body = value
      .replace(/\\/g, '\\\\')
      .replace(/\n/g, '\\n')
      .replace(/\r/g, '\\r')
      .replace(/\t/g, '\\t');
    return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
  }
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pythonRepr(k)}: ${pythonRepr(v)}`).join(', ')}}`;
}

export async function bulkKeys(db: ReadHandle, projectId: number, ids: unknown[] | undefined): Promise<BulkKeysResult> {
  if (!ids || ids.length === 0) return { keys: {} };
  const valid: number[] = [];
  const invalid: unknown[] = [];
  for (const raw of ids) {
    const id = flagIdOf(raw);
    if (id === null) invalid.push(raw);
    else valid.push(id);
  }
  if (valid.length === 0) throw new RawErrorResponse(400, { error: 'Invalid flag IDs provided' });
  const inRange = [...new Set(valid.filter((id) => id >= 1 && id <= INT32_MAX))];
  const keys: Record<string, string> = {};
  for (const flag of await liveFlagKeys(db, projectId, inRange)) keys[String(flag.id)] = flag.key;
  return invalid.length > 0 ? { keys, warning: `Invalid flag IDs ignored: ${pythonRepr(invalid)}` } : { keys };
}
