import { validationError } from '../kernel/errors.ts';

export const similarToPerson = (attr: string) =>
  validationError('The password is too similar to your e-mail address or name.', attr, 'password_too_similar');

export const invalidInvite = () => validationError('The provided invite ID is not valid.', null, 'invalid_input');

export const emailTaken = () => validationError('There is already an account with this email address.', 'email', 'unique');
