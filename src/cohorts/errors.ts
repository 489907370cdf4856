import type { ApiError } from '../kernel/errors.ts';
import { filtersError } from '../targeting/errors.ts';

export function missingKeys(kind: string, missing: string[]): ApiError {
  return filtersError(`Missing required keys for ${kind} filter: ${missing.join(', ')}`);
}

export const loopError = () => filtersError('Cohorts cannot reference other cohorts in a loop.', 'cohort_loop');
