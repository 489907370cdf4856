/**
 * Who is being evaluated: the identifier that is hashed, and the properties conditions read
 * (reference §6.1, §6.6).
 *
 * - Person: the distinct id; the flag's hash-key override when it has experience continuity and
 *   the caller knows one; with `bucketing_identifier: "device_id"` the device id (the request's
 *   `$device_id`, else the person property `$device_id`). Without a device id such a flag's person
 *   condition sets cannot be hashed and are skipped as out of rollout bound (PostHog's flags
 *   service; posthog-node leaves the flag to the server). Properties: `distinct_id` (as posthog-node
 *   adds it) under the person properties.
 * - Group: the group key sent for the group type the index names; properties: `$group_key` (as
 *   posthog-node adds it) under the group's properties. No such group type or no key → no subject.
 */
import type { EvaluationContext, EvaluationFlag } from './types.ts';

export interface Subject {
  /** The hashed identifier; null when a device-id flag has no device id. */
  identifier: string | null;
  /** The identifier before any experience-continuity override (holdouts hash this one). */
  baseIdentifier: string;
  properties: Record<string, unknown>;
}

function deviceIdOf(ctx: EvaluationContext): string | null {
  const candidates = [ctx.deviceId, ctx.personProperties.$device_id];
  for (const candidate of candidates) {
    if ((typeof candidate === 'string' && candidate !== '') || typeof candidate === 'number') return String(candidate);
  }
  return null;
}

export function personSubject(flag: EvaluationFlag, ctx: EvaluationContext): Subject {
  const properties = { distinct_id: ctx.distinctId, ...ctx.personProperties };
  if (flag.bucketing_identifier === 'device_id') {
    const deviceId = deviceIdOf(ctx);
    return { identifier: deviceId, baseIdentifier: deviceId ?? ctx.distinctId, properties };
  }
  const override = flag.ensure_experience_continuity ? ctx.hashKeyOverrides?.[flag.key] : undefined;
  return {
    identifier: typeof override === 'string' ? override : ctx.distinctId,
    baseIdentifier: ctx.distinctId,
    properties,
  };
}

export function groupSubject(groupTypeIndex: number, ctx: EvaluationContext): Subject | null {
  const groupType = ctx.groupTypeMapping[groupTypeIndex];
  if (groupType === undefined || !Object.prototype.hasOwnProperty.call(ctx.groups, groupType)) return null;
  const groupKey = ctx.groups[groupType];
  if (groupKey === undefined || groupKey === null) return null;
  const key = String(groupKey);
  return {
    identifier: key,
    baseIdentifier: key,
    properties: { $group_key: key, ...(ctx.groupProperties[groupType] ?? {}) },
  };
}
