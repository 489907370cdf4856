import { Type, type Static } from 'typebox';
import { Organization, OrganizationSummary, TeamBasic, Timestamp } from '../organizations/schemas.ts';
import { UserSummary } from './user-summary.ts';

/** `GET /api/users/@me/`: the caller, with their current organization and project. */
export const Me = Type.Object({
  ...UserSummary.properties,
  date_joined: Timestamp,
  organization: Type.Union([Organization, Type.Null()], {
    description: 'The current organization (`@current`), when the key may reach it.',
  }),
  team: Type.Union([TeamBasic, Type.Null()], {
    description: 'The current project (`@current`: the key\'s first scoped project, else the user\'s current one), when the key may reach it.',
  }),
  organizations: Type.Array(OrganizationSummary, { description: 'The organizations the key may reach.' }),
});
export type Me = Static<typeof Me>;
