/**
 * The OpenFeature Remote Evaluation Protocol (OFREP) over the one engine: request contexts in,
 * OFREP results out (shapes of @openfeature/ofrep-core's model). See docs/sdk.md.
 *
 * - Context: `targetingKey` is the distinct id (missing → 400 `TARGETING_KEY_MISSING`); `groups`
 *   (group type → key) and `groupProperties` (group type → properties) are PostHog groups; every
 *   other attribute is a person property, merged over the stored ones.
 * - Value: the PostHog value — the variant key of a multivariate flag, else `true`/`false` (a
 *   flag that does not match is `false`, also for a multivariate flag). `variant` is the value as
 *   text. Metadata (primitives only, as OpenFeature keeps them): `flagId`, `version`,
 *   `posthogReason`, `conditionIndex`, `description`, `payload` (the stored JSON text).
 * - Reason: `DISABLED` (inactive flag); `TARGETING_MATCH` (a condition set with properties
 *   matched, or an early-access enrollment decided); `SPLIT` (decided by the rollout or variant
 *   hash: a rollout below 100 %, a hashed variant, a holdout, or out of the rollout); `STATIC`
 *   (a condition set with no properties and no randomness); `DEFAULT` (no condition set matched).
 */
import type { FlagResult } from '../evaluation/index.ts';
import type { SubjectInput } from './context.ts';
import { flagValue } from './evaluate.ts';
import { idText, isObject, readGroups } from './flags-request.ts';
import type { LiveFlag } from './live-flag.ts';

export type OfrepErrorCode = 'PARSE_ERROR' | 'TARGETING_KEY_MISSING' | 'INVALID_CONTEXT' | 'GENERAL' | 'FLAG_NOT_FOUND';

export class OfrepFailure extends Error {
  constructor(
    readonly status: 400 | 404 | 500,
    readonly errorCode: OfrepErrorCode,
    detail: string,
  ) {
    super(detail);
  }

  body(key?: string): Record<string, unknown> {
    return { ...(key === undefined ? {} : { key }), errorCode: this.errorCode, errorDetails: this.message };
  }
}

const RESERVED = new Set(['targetingKey', 'groups', 'groupProperties']);

/** The evaluation subject of an OFREP request body `{context: {...}}`. */
export function readOfrepContext(body: unknown): SubjectInput {
  if (!isObject(body)) throw new OfrepFailure(400, 'PARSE_ERROR', 'The request body must be a JSON object: {"context": {...}}.');
  const context = body.context ?? {};
  if (!isObject(context)) throw new OfrepFailure(400, 'INVALID_CONTEXT', 'context must be an object.');
  const rawKey = context.targetingKey;
  if (rawKey === undefined || rawKey === null || rawKey === '') {
    throw new OfrepFailure(400, 'TARGETING_KEY_MISSING', 'context.targetingKey (the distinct id) is required.');
  }
  const distinctId = idText(rawKey);
  if (distinctId === null) throw new OfrepFailure(400, 'INVALID_CONTEXT', 'context.targetingKey must be a string.');
  let groups: Record<string, string>;
  try {
    groups = readGroups(context.groups);
  } catch (error) {
    throw new OfrepFailure(400, 'INVALID_CONTEXT', `context.groups: ${(error as Error).message}`);
  }
  const groupProperties: Record<string, Record<string, unknown>> = {};
  if (context.groupProperties !== undefined && context.groupProperties !== null) {
    if (!isObject(context.groupProperties)) throw new OfrepFailure(400, 'INVALID_CONTEXT', 'context.groupProperties must be an object.');
    for (const [type, properties] of Object.entries(context.groupProperties)) {
      if (properties === null || properties === undefined) continue;
      if (!isObject(properties)) throw new OfrepFailure(400, 'INVALID_CONTEXT', `context.groupProperties.${type} must be an object.`);
      groupProperties[type] = properties;
    }
  }
  const personProperties: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(context)) {
    if (RESERVED.has(name)) continue;
    Object.defineProperty(personProperties, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return { distinctId, groups, groupProperties, personProperties };
}

function openFeatureReason(live: LiveFlag, result: FlagResult): string {
  switch (result.reason.code) {
    case 'flag_disabled':
      return 'DISABLED';
    case 'super_condition_value':
      return 'TARGETING_MATCH';
    case 'holdout_condition_value':
    case 'out_of_rollout_bound':
      return 'SPLIT';
    case 'condition_match': {
      const index = result.reason.condition_index;
      const group = index === null ? undefined : live.flag.filters.groups?.[index];
      if ((group?.properties ?? []).length > 0) return 'TARGETING_MATCH';
      const rollout = group?.rollout_percentage;
      const partial = rollout !== null && rollout !== undefined && rollout < 100;
      const hashedVariant = result.variant !== null && group?.variant !== result.variant;
      return partial || hashedVariant ? 'SPLIT' : 'STATIC';
    }
    default:
      return 'DEFAULT';
  }
}

export function ofrepResult(live: LiveFlag, result: FlagResult): Record<string, unknown> {
  const value = flagValue(result);
  const metadata: Record<string, string | number | boolean> = {
    flagId: live.record.id,
    version: live.record.version,
    posthogReason: result.reason.code,
  };
  if (result.reason.condition_index !== null) metadata.conditionIndex = result.reason.condition_index;
  if (live.record.name !== '') metadata.description = live.record.name;
  if (result.payload !== null) metadata.payload = result.payload;
  return { key: live.record.key, value, reason: openFeatureReason(live, result), variant: String(value), metadata };
}
