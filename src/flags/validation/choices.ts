import type { EvaluationRuntime } from '../../targeting/types.ts';
import { invalidChoice, nullNotAllowed } from '../errors.ts';

export const EVALUATION_RUNTIMES: readonly EvaluationRuntime[] = ['server', 'client', 'all', 'both'];
export type BucketingIdentifier = 'distinct_id' | 'device_id';
export const BUCKETING_IDENTIFIERS: readonly BucketingIdentifier[] = ['distinct_id', 'device_id'];

function isOneOf<T extends string>(raw: unknown, choices: readonly T[]): raw is T {
  return typeof raw === 'string' && (choices as readonly string[]).includes(raw);
}

/** `evaluation_runtime`: stored as sent; `both` and `all` mean the same. */
export function validateEvaluationRuntime(raw: unknown): EvaluationRuntime {
  if (raw === null) throw nullNotAllowed('evaluation_runtime');
  if (!isOneOf(raw, EVALUATION_RUNTIMES)) throw invalidChoice(raw, 'evaluation_runtime');
  return raw;
}

/** `bucketing_identifier` (V-B): null means the default, `distinct_id`. */
export function validateBucketingIdentifier(raw: unknown): BucketingIdentifier | null {
  if (raw === null) return null;
  if (!isOneOf(raw, BUCKETING_IDENTIFIERS)) throw invalidChoice(raw, 'bucketing_identifier');
  return raw;
}
