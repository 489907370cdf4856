import { Type, type Static } from 'typebox';
import { PASSWORD_MAX_LENGTH } from '../auth/password-rules.ts';
import { paginatedOf } from '../../kernel/http/pagination.ts';
import { LevelNumber } from '../members/schemas.ts';
import { Timestamp } from '../organizations/schemas.ts';
import { EMAIL_MAX_LENGTH } from '../users/email.ts';
import { UserSummary } from '../users/user-summary.ts';

export const FIRST_NAME_MAX_LENGTH = 150;

export const InviteParams = Type.Object({
  organization_id: Type.String({ description: "The organization's id (a UUID), or `@current`." }),
  invite_id: Type.String({ description: "The invite's id (a UUID)." }),
});
export type InviteParams = Static<typeof InviteParams>;

/** PostHog's OrganizationInvite, plus the link to hand over. */
export const Invite = Type.Object({
  id: Type.String({ format: 'uuid' }),
  target_email: Type.String(),
  first_name: Type.String(),
  emailing_attempt_made: Type.Boolean({ description: 'The invite was mailed (SMTP configured and `send_email` not false); else hand over `invite_url`.' }),
  level: LevelNumber,
  is_expired: Type.Boolean({ description: 'Invites can be used for 3 days.' }),
  created_by: Type.Union([UserSummary, Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
  message: Type.Null({ description: 'Always null: a message is not kept.' }),
  invite_url: Type.String({ description: 'The sign-up page for this invite: `<SITE_URL or this server>/signup/<id>`.' }),
});
export type Invite = Static<typeof Invite>;

export const InviteList = paginatedOf(Invite);

export const CreateInviteBody = Type.Object({
  target_email: Type.String({ maxLength: EMAIL_MAX_LENGTH }),
  first_name: Type.Optional(Type.String({ maxLength: FIRST_NAME_MAX_LENGTH })),
  level: Type.Optional(LevelNumber),
  message: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()], { description: 'Accepted and not kept.' })),
  send_email: Type.Optional(Type.Boolean({ description: 'With SMTP configured, the invite is mailed unless this is false.' })),
});
export type CreateInviteBody = Static<typeof CreateInviteBody>;

export const SignupParams = Type.Object({ invite_id: Type.String({ maxLength: 100 }) });
export type SignupParams = Static<typeof SignupParams>;

export const SignupInfo = Type.Object({
  id: Type.String({ format: 'uuid' }),
  target_email: Type.String({ description: 'Masked as PostHog masks it: `j**n@example.com`.' }),
  first_name: Type.String(),
  organization_name: Type.String(),
  existing_account: Type.Boolean({
    description: 'True when the request is signed in as the invited address: a POST joins that account, no name or password needed.',
  }),
});
export type SignupInfo = Static<typeof SignupInfo>;

/** `first_name` and `password` are required for a new account; signed in as the invited address, neither is. */
export const SignupBody = Type.Object({
  first_name: Type.Optional(Type.String({ maxLength: FIRST_NAME_MAX_LENGTH })),
  last_name: Type.Optional(Type.String({ maxLength: FIRST_NAME_MAX_LENGTH })),
  password: Type.Optional(Type.String({ maxLength: PASSWORD_MAX_LENGTH })),
});
export type SignupBody = Static<typeof SignupBody>;
