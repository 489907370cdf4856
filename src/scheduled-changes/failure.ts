/**
 * What a failed run records and how the API words it. An error is permanent when it is about the
 * change itself (bad payload, a flag that is gone, a rule of the flag refusing it); anything else
 * (the database unavailable, a timeout, a conflict) is tried again, at most MAX_ATTEMPTS times in all.
 */
import { ApiError } from '../kernel/errors.ts';

export const MAX_ATTEMPTS = 5;

/** A problem with the change itself: never worth a retry. */
export class PermanentChangeError extends Error {}

const PERMANENT_WORDS = ['invalid payload', 'unrecognized operation', 'does not exist', 'constraint', 'foreign key', 'unique constraint'];

export function isPermanent(error: unknown): boolean {
  if (error instanceof PermanentChangeError) return true;
  // A 4xx from the flag writer: validation, not found, a version conflict it would raise again.
  if (error instanceof ApiError && error.status < 500) return true;
  const message = errorMessage(error).toLowerCase();
  return PERMANENT_WORDS.some((word) => message.includes(word));
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

export interface StoredFailure {
  error: string;
  error_type: string;
  will_retry: boolean;
  retry_count: number;
  max_retries: number;
  retry_exhausted?: boolean;
  error_classification: 'unrecoverable' | 'recoverable';
}

/** The JSON stored for a failure that is the `failureCount`th of the row. */
export function storedFailure(error: unknown, failureCount: number): StoredFailure {
  const permanent = isPermanent(error);
  const willRetry = !permanent && failureCount < MAX_ATTEMPTS;
  return {
    error: errorMessage(error),
    error_type: error instanceof Error ? error.constructor.name : typeof error,
    will_retry: willRetry,
    retry_count: failureCount,
    max_retries: MAX_ATTEMPTS,
    ...(failureCount >= MAX_ATTEMPTS ? { retry_exhausted: true } : {}),
    error_classification: permanent ? 'unrecoverable' : 'recoverable',
  };
}

/** `failure_reason` as the API shows it (never the stored JSON itself). */
export function failureText(stored: string | null): string | null {
  if (stored === null || stored === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return stored;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return stored;
  const failure = parsed as Partial<StoredFailure>;
  const error = String(failure.error ?? '');
  const count = Number(failure.retry_count ?? 0);
  const max = Number(failure.max_retries ?? MAX_ATTEMPTS);
  if (failure.retry_exhausted === true) return `${error} (failed after ${count} out of ${max} attempts)`;
  if (failure.error_classification === 'unrecoverable') return `${error} (permanent error)`;
  if (failure.will_retry === true) {
    const left = max - count;
    return `${error} (will retry automatically, ${left} ${left === 1 ? 'attempt' : 'attempts'} remaining)`;
  }
  return error;
}

/** Before trying a recoverable failure again: 15 s, 30 s, 60 s, 120 s. */
export function retryDelayMs(failureCount: number): number {
  return 15_000 * 2 ** Math.max(0, failureCount - 1);
}
