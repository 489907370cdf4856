import { conflict, type ApiError, validationError } from '../kernel/errors.ts';
import { displayValue, pythonStr } from './validation/values.ts';
import { filtersError } from '../targeting/errors.ts';

export const keyTaken = () => validationError('There is already a feature flag with this key.', 'key', 'unique');

export const tooManyFlags = (limit: number) =>
  validationError(
    `This project has ${limit} feature flags, the most a project may have. Delete flags it no longer needs to make room.`,
    null,
    'max_flags',
  );

/** DRF's answer for an explicit null on a field that does not allow it. */
export const nullNotAllowed = (attr: string): ApiError => validationError('This field may not be null.', attr, 'null');

export const conflictError = (editorEmail: string | null) =>
  conflict(
    `The feature flag was updated by ${editorEmail ?? 'another user'} since you started editing it. Please refresh and try again.`,
  );

export const invalidChoice = (raw: unknown, attr: string): ApiError =>
  validationError(`"${pythonStr(raw)}" is not a valid choice.`, attr, 'invalid_choice');

export const missingCohort = (id: unknown) => filtersError(`Cohort with id ${displayValue(id)} does not exist`, 'cohort_does_not_exist');

export const invalidVariants = (why: string) => filtersError(`Invalid variant definitions: ${why}`);
