import { Type, type Static } from 'typebox';
import { PASSWORD_MAX_LENGTH } from '../auth/password-rules.ts';

/** RFC 5321's limit on an address. */
export const EMAIL_MAX_LENGTH = 254;

export const LoginBody = Type.Object({
  email: Type.String({ maxLength: EMAIL_MAX_LENGTH }),
  password: Type.String({ maxLength: PASSWORD_MAX_LENGTH }),
});
export type LoginBody = Static<typeof LoginBody>;

export const OneTimeLoginBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of a one-time sign-in link (after `#token=`).' }),
});
export type OneTimeLoginBody = Static<typeof OneTimeLoginBody>;

export const LoginSuccess = Type.Object({ success: Type.Literal(true) });
