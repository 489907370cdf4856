import { diffChanges, type Change } from '../accounts/activity/changes.ts';
import type { NewActivity } from '../accounts/activity/store.ts';
import { presentFlagBody } from './present.ts';
import type { FlagRecord } from './record.ts';

export const FLAG_ACTIVITY_SCOPE = 'FeatureFlag';

/** What made a change that no person made by hand (a scheduled change): `detail.trigger` of its entry. */
export interface ActivityTrigger {
  job_type: string;
  job_id: string;
  payload: Record<string, unknown>;
}

/** The model fields PostHog compares; version is among them, so every update shows it. */
const COMPARED_FIELDS = [
  'key',
  'name',
  'filters',
  'deleted',
  'active',
  'archived',
  'version',
  'ensure_experience_continuity',
  'rollback_conditions',
  'performed_rollback',
  'has_enriched_analytics',
  'is_remote_configuration',
  'has_encrypted_payloads',
  'evaluation_runtime',
  'bucketing_identifier',
  'last_called_at',
  'tags',
  'evaluation_tags',
] as const;

function comparable(flag: FlagRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of COMPARED_FIELDS) {
    const value = flag[field];
    out[field] = value instanceof Date ? value.toISOString() : value;
  }
  return out;
}

function activityName(before: FlagRecord | null, changes: Change[]): string {
  if (before === null) return 'created';
  const deleted = changes.find((c) => c.field === 'deleted');
  if (deleted && deleted.after === true) return 'deleted';
  if (deleted && before.deleted) return 'restored';
  return 'updated';
}

/** The entry of a create (`before` null) or an update; null when the update changed nothing PostHog compares. */
export function flagActivityEntry(
  before: FlagRecord | null,
  after: FlagRecord,
  userId: number | null,
  trigger: ActivityTrigger | null = null,
): NewActivity | null {
  const changes = before === null ? [] : diffChanges('FeatureFlag', comparable(before), comparable(after), COMPARED_FIELDS);
  if (before !== null && changes.length === 0) return null;
  return {
    projectId: after.project_id,
    scope: FLAG_ACTIVITY_SCOPE,
    itemId: String(after.id),
    activity: activityName(before, changes),
    userId,
    detail: { changes, trigger, type: null, name: after.key, short_id: null },
    subject: () => ({ ...presentFlagBody(after) }),
  };
}
