import { paginatedOf } from '../../kernel/http/pagination.ts';
import { Type, type Static } from 'typebox';

/** ISO 8601 in UTC with `Z`. */
export const Timestamp = Type.String({ format: 'date-time' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

/** The body of every paginated list (see http/pagination.ts). */
export const OrganizationParams = Type.Object({
  organization_id: Type.String({ description: "The organization's id (a UUID), or `@current`." }),
});
export type OrganizationParams = Static<typeof OrganizationParams>;

export const CreateOrganizationBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64 }),
});
export type CreateOrganizationBody = Static<typeof CreateOrganizationBody>;

/** PostHog's TeamBasic: how environments appear inside an organization and in `users/@me`; `project_id` is the project it belongs to. */
export const TeamBasic = Type.Object({
  id: Type.Integer(),
  project_id: Type.Integer(),
  organization: Type.String({ format: 'uuid' }),
  name: Type.String(),
  api_token: Type.String(),
  timezone: Type.String(),
  color: Type.Union([Type.String(), Type.Null()], { description: 'The colour the console paints the environment with (`#rrggbb`), or null.' }),
});
export type TeamBasic = Static<typeof TeamBasic>;

export const OrganizationProject = Type.Object({
  id: Type.Integer(),
  organization_id: Type.String({ format: 'uuid' }),
  name: Type.String(),
});

const MembershipLevel = Type.Integer({
  description: "The caller's role in the organization, as PostHog numbers it: 1 member, 8 admin, 15 owner.",
});

export const Organization = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  slug: Type.Union([Type.String(), Type.Null()]),
  logo_media_id: Type.Null(),
  created_at: Timestamp,
  updated_at: Timestamp,
  membership_level: MembershipLevel,
  member_count: Type.Integer(),
  teams: Type.Array(TeamBasic, { description: 'The projects of this organization the key may reach.' }),
  projects: Type.Array(OrganizationProject, { description: 'The same projects, in their short form.' }),
});
export type Organization = Static<typeof Organization>;

/** How organizations are listed in `users/@me`. */
export const OrganizationSummary = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  slug: Type.Union([Type.String(), Type.Null()]),
  logo_media_id: Type.Null(),
  membership_level: MembershipLevel,
});
export type OrganizationSummary = Static<typeof OrganizationSummary>;

export const OrganizationList = paginatedOf(Organization);
