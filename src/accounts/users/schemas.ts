import { Type, type Static } from 'typebox';
import { Organization, OrganizationSummary, TeamBasic, Timestamp } from '../organizations/schemas.ts';
import { PASSWORD_MAX_LENGTH } from '../auth/password-rules.ts';
import { EMAIL_MAX_LENGTH } from './email.ts';
import { UserSummary } from './user-summary.ts';

/** `GET /api/users/@me/`: the caller, with their current organization and project. */
export const Me = Type.Object({
  ...UserSummary.properties,
  date_joined: Timestamp,
  has_password: Type.Boolean({ description: 'False for a person who has only ever signed in by a one-time link.' }),
  organization: Type.Union([Organization, Type.Null()], {
    description: 'The current organization (`@current`), when the key may reach it.',
  }),
  team: Type.Union([TeamBasic, Type.Null()], {
    description: 'The current project (`@current`: the key\'s first scoped project, else the user\'s current one), when the key may reach it.',
  }),
  organizations: Type.Array(OrganizationSummary, { description: 'The organizations the key may reach.' }),
});
export type Me = Static<typeof Me>;

export const NAME_MAX_LENGTH = 150;

/** `PATCH /api/users/@me/`: the fields a person changes about themselves. */
export const UpdateMeBody = Type.Object({
  first_name: Type.Optional(Type.String({ maxLength: NAME_MAX_LENGTH })),
  last_name: Type.Optional(Type.String({ maxLength: NAME_MAX_LENGTH })),
  email: Type.Optional(Type.String({ maxLength: EMAIL_MAX_LENGTH })),
  password: Type.Optional(
    Type.String({ maxLength: PASSWORD_MAX_LENGTH, description: 'A new password; needs `current_password` when one is set. Ends your other sessions.' }),
  ),
  current_password: Type.Optional(
    Type.String({ maxLength: PASSWORD_MAX_LENGTH, description: 'Your password, when you change `password` or `email` and have one.' }),
  ),
  set_current_team: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 2147483647, description: 'An environment you may reach: it, and its organization, become your `@current` ones.' }),
  ),
});
export type UpdateMeBody = Static<typeof UpdateMeBody>;
