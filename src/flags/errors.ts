import { validationError } from '../platform/errors.ts';

export const keyTaken = () => validationError('There is already a feature flag with this key.', 'key', 'unique');

export const UNIQUE_VIOLATION = '23505';

export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === UNIQUE_VIOLATION;
}
