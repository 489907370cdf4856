import { validationError } from '../kernel/errors.ts';

export const keyTaken = () => validationError('There is already a feature flag with this key.', 'key', 'unique');

export const tooManyFlags = (limit: number) =>
  validationError(
    `This project has ${limit} feature flags, the most a project may have. Delete flags it no longer needs to make room.`,
    null,
    'max_flags',
  );
