/**
 * Who is being evaluated: the identifier that is hashed, and the properties conditions read.
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
import { looseText } from './values.ts';

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

/**
 * The subjects of one context, built once and shared by every flag evaluated with it (a project's
 * flags mostly hash the same person with the same properties). Subjects are read-only.
 */
export class Subjects {
  private personProperties: Record<string, unknown> | null = null;
  private person: Subject | null = null;
  private deviceSubject: Subject | null = null;
  private readonly groups = new Map<number, Subject | null>();

  constructor(private readonly ctx: EvaluationContext) {}

  private properties(): Record<string, unknown> {
    return (this.personProperties ??= { distinct_id: this.ctx.distinctId, ...this.ctx.personProperties });
  }

  personFor(flag: EvaluationFlag): Subject {
    const ctx = this.ctx;
    if (flag.bucketing_identifier === 'device_id') {
      if (!this.deviceSubject) {
        const deviceId = deviceIdOf(ctx);
        this.deviceSubject = { identifier: deviceId, baseIdentifier: deviceId ?? ctx.distinctId, properties: this.properties() };
      }
      return this.deviceSubject;
    }
    const override = flag.ensure_experience_continuity ? ctx.hashKeyOverrides?.[flag.key] : undefined;
    if (typeof override === 'string') return { identifier: override, baseIdentifier: ctx.distinctId, properties: this.properties() };
    return (this.person ??= { identifier: ctx.distinctId, baseIdentifier: ctx.distinctId, properties: this.properties() });
  }

  group(groupTypeIndex: number): Subject | null {
    let subject = this.groups.get(groupTypeIndex);
    if (subject === undefined) {
      subject = groupSubject(groupTypeIndex, this.ctx);
      this.groups.set(groupTypeIndex, subject);
    }
    return subject;
  }
}

export function groupSubject(groupTypeIndex: number, ctx: EvaluationContext): Subject | null {
  const groupType = ctx.groupTypeMapping[groupTypeIndex];
  if (groupType === undefined || !Object.prototype.hasOwnProperty.call(ctx.groups, groupType)) return null;
  const groupKey = ctx.groups[groupType];
  if (groupKey === undefined || groupKey === null) return null;
  const key = looseText(groupKey);
  return {
    identifier: key,
    baseIdentifier: key,
    properties: { $group_key: key, ...(ctx.groupProperties[groupType] ?? {}) },
  };
}
