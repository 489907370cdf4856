import type { FlagValues } from './record.ts';
import type { FlagWriteBody } from './schemas.ts';
import {
  checkEvaluationTagsSubset,
  normalizeTags,
  validateBucketingIdentifier,
  validateEvaluationRuntime,
} from './validation/index.ts';

/** The defaults of a new flag, before the body is applied. */
export function newFlagValues(key: string, now: Date): FlagValues {
  return {
    key,
    name: '',
    filters: {},
    deleted: false,
    active: true,
    archived: false,
    created_at: now,
    ensure_experience_continuity: null,
    rollback_conditions: null,
    performed_rollback: null,
    tags: [],
    evaluation_tags: [],
    has_enriched_analytics: null,
    creation_context: 'feature_flags',
    is_remote_configuration: null,
    has_encrypted_payloads: null,
    evaluation_runtime: 'all',
    bucketing_identifier: null,
    last_called_at: null,
    create_in_folder: null,
    should_create_usage_dashboard: true,
  };
}

/**
 * Applies the fields that need no knowledge of other flags. `key`, `filters` and the rules that
 * compare old and new state (delete, enable, disable) are the callers' business.
 */
export function applyPlainFields(values: FlagValues, body: FlagWriteBody): FlagValues {
  const next = { ...values };
  if (body.name !== undefined) next.name = body.name ?? '';
  if (body.deleted !== undefined) next.deleted = body.deleted;
  if (body.active !== undefined) {
    next.active = body.active;
    // Turning a flag on clears an earlier automatic rollback.
    if (body.active) next.performed_rollback = false;
  }
  if (body.archived !== undefined) next.archived = body.archived;
  if (body.created_at !== undefined) next.created_at = new Date(body.created_at);
  if (body.ensure_experience_continuity !== undefined) next.ensure_experience_continuity = body.ensure_experience_continuity;
  if (body.rollback_conditions !== undefined) next.rollback_conditions = body.rollback_conditions;
  if (body.performed_rollback !== undefined && !(body.active === true)) next.performed_rollback = body.performed_rollback;
  if (body.has_enriched_analytics !== undefined) next.has_enriched_analytics = body.has_enriched_analytics;
  if (body.creation_context !== undefined) next.creation_context = body.creation_context;
  if (body.is_remote_configuration !== undefined) next.is_remote_configuration = body.is_remote_configuration;
  if (body.has_encrypted_payloads !== undefined) next.has_encrypted_payloads = body.has_encrypted_payloads;
  if (body.evaluation_runtime !== undefined) next.evaluation_runtime = validateEvaluationRuntime(body.evaluation_runtime);
  if (body.bucketing_identifier !== undefined) next.bucketing_identifier = validateBucketingIdentifier(body.bucketing_identifier);
  if (body.last_called_at !== undefined) next.last_called_at = body.last_called_at === null ? null : new Date(body.last_called_at);
  if (body._create_in_folder !== undefined) next.create_in_folder = body._create_in_folder;
  if (body._should_create_usage_dashboard !== undefined) next.should_create_usage_dashboard = body._should_create_usage_dashboard;
  if (body.tags !== undefined) next.tags = normalizeTags(body.tags, 'tags');
  if (body.evaluation_tags !== undefined) next.evaluation_tags = normalizeTags(body.evaluation_tags, 'evaluation_tags');
  if (body.tags !== undefined || body.evaluation_tags !== undefined) checkEvaluationTagsSubset(next.evaluation_tags, next.tags);
  return next;
}
