import { validationError, type ApiError } from '../../kernel/errors.ts';

/** Every error from filters validation is a field error on `filters`. */
export const filtersError = (detail: string, code = 'invalid_input'): ApiError => validationError(detail, 'filters', code);

/** DRF's answer for an explicit null on a field that does not allow it. */
export const nullNotAllowed = (attr: string): ApiError => validationError('This field may not be null.', attr, 'null');
