import { Type, type Static } from 'typebox';
import { paginatedOf } from '../../kernel/http/pagination.ts';
import { NullableTimestamp, Timestamp } from '../organizations/schemas.ts';
import { UserSummary } from '../users/user-summary.ts';

export const MemberParams = Type.Object({
  organization_id: Type.String({ description: "The organization's id (a UUID), or `@current`." }),
  user_uuid: Type.String({ description: "The member's user uuid." }),
});
export type MemberParams = Static<typeof MemberParams>;

export const LevelNumber = Type.Integer({ description: 'PostHog numbers levels: 1 member, 8 admin, 15 owner.' });

/** PostHog's OrganizationMember. */
export const Member = Type.Object({
  id: Type.String({ format: 'uuid', description: "The membership's id." }),
  user: UserSummary,
  level: LevelNumber,
  joined_at: Timestamp,
  updated_at: Timestamp,
  is_2fa_enabled: Type.Boolean({ description: 'Always false: two-factor sign-in is not offered.' }),
  has_social_auth: Type.Boolean({ description: 'The person has signed in with single sign-on (OpenID Connect).' }),
  has_password: Type.Boolean({ description: 'The person has a password (false: single sign-on or sign-in links only).' }),
  last_login: NullableTimestamp,
});
export type Member = Static<typeof Member>;

export const MemberList = paginatedOf(Member);

export const UpdateMemberBody = Type.Object({ level: LevelNumber });
export type UpdateMemberBody = Static<typeof UpdateMemberBody>;
