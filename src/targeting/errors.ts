import { validationError, type ApiError } from '../kernel/errors.ts';

/** Every error from validating `filters` (a flag's, a cohort's) is a field error on `filters`. */
export const filtersError = (detail: string, code = 'invalid_input'): ApiError => validationError(detail, 'filters', code);
