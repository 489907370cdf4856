import { jsonEqual } from '../accounts/activity/changes.ts';
import { validationError } from '../kernel/errors.ts';
import type { FlagResponse, FlagWriteBody } from './schemas.ts';
import { conflictError } from './errors.ts';

/** `If-Match: "3"`, `W/"3"` or `3`; `*` matches any version. */
export function parseIfMatch(header: string | undefined): number | '*' | null {
  if (header === undefined) return null;
  const trimmed = header.trim();
  if (trimmed === '*') return '*';
  const match = /^(?:W\/)?"?(\d{1,10})"?$/.exec(trimmed);
  if (!match) throw validationError('If-Match must carry a flag version, such as "3".', null, 'invalid_input');
  return Number(match[1]);
}

/** Strict check: a stale `If-Match` version is a conflict, whatever the body changes. */
export function checkIfMatch(expected: number | '*' | null, currentVersion: number, editorEmail: string | null): void {
  if (expected === null || expected === '*') return;
  if (expected !== currentVersion) throw conflictError(editorEmail);
}

/**
 * PostHog's opt-in rule: with a stale body `version` and an `original_flag`, a conflict is a field
 * the client changes that someone else changed too, to a different value.
 */
export function checkOriginalFlag(body: FlagWriteBody, current: FlagResponse, editorEmail: string | null): void {
  if (body.version === undefined || body.version === null || body.version === current.version) return;
  const original = body.original_flag;
  if (typeof original !== 'object' || original === null || Object.keys(original).length === 0) return;
  const originalFields = original as Record<string, unknown>;
  const currentFields = current as unknown as Record<string, unknown>;
  for (const [field, sent] of Object.entries(body)) {
    if (field === 'version' || field === 'original_flag' || !(field in currentFields)) continue;
    const before = originalFields[field];
    const stored = currentFields[field];
    if (!jsonEqual(sent, before) && !jsonEqual(before, stored) && !jsonEqual(stored, sent)) {
      throw conflictError(editorEmail);
    }
  }
}
