import { validationError, type ApiError } from '../kernel/errors.ts';

/** A rule error on one field (`validate_<field>` or a dict raised by `validate()`): attr is that field. */
export const fieldError = (attr: string, detail: string, code = 'invalid_input'): ApiError => validationError(detail, attr, code);

export const questionsError = (detail: string): ApiError => fieldError('questions', detail);

/** A plain message raised by the object-level `validate()`: attr null. */
export const objectError = (detail: string, code = 'invalid_input'): ApiError => validationError(detail, null, code);

export const listError = () => validationError('target_team_ids must be a non-empty list of team IDs');

export const invalidCursor = () => validationError('Invalid cursor.', 'cursor', 'invalid');

export const appearanceError = (detail: string) => fieldError('appearance', detail);

export const translationsError = (detail: string) => fieldError('translations', detail);

export const surveyNameTakenError = () => validationError('There is already a survey with this name.', 'name', 'unique');
