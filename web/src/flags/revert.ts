/** What a flag history entry's revert writes: its `before` values, as a new change. */
import type { ActivityEntry } from '../api/types.ts';

/** Fields a person can write back; version and last_called_at move by themselves. */
const REVERTIBLE = new Set([
  'key',
  'name',
  'filters',
  'deleted',
  'active',
  'archived',
  'ensure_experience_continuity',
  'rollback_conditions',
  'performed_rollback',
  'has_enriched_analytics',
  'is_remote_configuration',
  'has_encrypted_payloads',
  'evaluation_runtime',
  'bucketing_identifier',
  'tags',
  'evaluation_tags',
]);

/**
 * The PATCH body that undoes the entry, or null when it changed nothing a person can write back.
 * Undoing the creation deletes the flag (restorable).
 */
export function revertChanges(entry: ActivityEntry): Record<string, unknown> | null {
  if (entry.activity === 'created') return { deleted: true };
  const changes: Record<string, unknown> = {};
  for (const change of entry.detail.changes ?? []) {
    if (!REVERTIBLE.has(change.field) || change.before === undefined) continue;
    changes[change.field] = change.before;
  }
  return Object.keys(changes).length > 0 ? changes : null;
}
