import { validationError, type ApiError } from '../../kernel/errors.ts';

/** A rule error on one field (`validate_<field>` or a dict raised by `validate()`): attr is that field. */
export const fieldError = (attr: string, detail: string, code = 'invalid_input'): ApiError => validationError(detail, attr, code);

export const questionsError = (detail: string): ApiError => fieldError('questions', detail);

/** A plain message raised by the object-level `validate()`: attr null. */
export const objectError = (detail: string, code = 'invalid_input'): ApiError => validationError(detail, null, code);
