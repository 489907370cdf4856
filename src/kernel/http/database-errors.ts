/**
 * PostgreSQL refusals caused by what a request carried (a value the validation let through, an id
 * that names nothing, a row still in use), answered as the client's error instead of a 500. The
 * error handler logs them as warnings: each one is a check the service should make itself.
 */
import { ApiError, conflict, validationError } from '../errors.ts';

interface DatabaseFailure {
  code: string;
  detail?: string;
  column?: string;
}

function isDatabaseFailure(error: unknown): error is DatabaseFailure {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9][0-9A-Z]{4}$/.test(code);
}

// `Key (linked_flag_id)=(0) is not present in table "feature_flags".`
const MISSING_KEY = /^Key \(([^)]+)\)=\((.*)\) is not present in table/;

/** The client's error for a database refusal, or null when the database failed for its own reasons. */
export function databaseErrorToApiError(error: unknown): ApiError | null {
  if (!isDatabaseFailure(error)) return null;
  const { code } = error;
  if (code === '23503') {
    const missing = MISSING_KEY.exec(error.detail ?? '');
    if (missing && !missing[1].includes(',')) {
      return validationError(`Invalid pk "${missing[2].slice(0, 100)}" - object does not exist.`, missing[1], 'does_not_exist');
    }
    if (missing) return validationError('A referenced object does not exist.', null, 'does_not_exist');
    return conflict('This object is still referenced by others and cannot be changed this way.');
  }
  if (code === '23505') return conflict('An object with these values already exists.');
  if (code === '23502') return validationError('This field may not be null.', error.column ?? null, 'null');
  if (code === '23514' || code === '23P01') return validationError('The values break a rule of the stored data.', null, 'invalid_input');
  // Class 22: data exceptions (unstorable text, out-of-range numbers and dates, bad input syntax).
  if (code.startsWith('22')) return validationError('A value of the request cannot be stored as sent.', null, 'invalid_input');
  // 54001 statement too complex, 54000 program limit exceeded (a value too large or deep to index or parse).
  if (code === '54000' || code === '54001') return validationError('A value of the request is too large or too deeply nested.', null, 'invalid_input');
  return null;
}
