import { Type, type Static } from 'typebox';

/** PostHog's UserBasic, embedded as created_by / last_modified_by. */
export const UserSummary = Type.Object({
  id: Type.Integer(),
  uuid: Type.String({ format: 'uuid' }),
  distinct_id: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  email: Type.String({ format: 'email' }),
  is_email_verified: Type.Union([Type.Boolean(), Type.Null()]),
  hedgehog_config: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  role_at_organization: Type.Union([Type.String(), Type.Null()]),
});
export type UserSummary = Static<typeof UserSummary>;

export interface UserRow {
  id: number;
  uuid: string;
  distinct_id: string;
  first_name: string;
  last_name: string;
  email: string;
  is_email_verified: boolean | null;
  hedgehog_config: Record<string, unknown> | null;
  role_at_organization: string | null;
}

/** SQL that builds a UserSummary as JSON from a users row aliased `alias` (null when the row is null). */
export function userSummarySql(alias: string): string {
  return `CASE WHEN ${alias}.id IS NULL THEN NULL ELSE json_build_object(
    'id', ${alias}.id, 'uuid', ${alias}.uuid, 'distinct_id', ${alias}.distinct_id,
    'first_name', ${alias}.first_name, 'last_name', ${alias}.last_name, 'email', ${alias}.email,
    'is_email_verified', ${alias}.is_email_verified, 'hedgehog_config', ${alias}.hedgehog_config,
    'role_at_organization', ${alias}.role_at_organization) END`;
}

export function toUserSummary(row: UserRow): UserSummary {
  return {
    id: row.id,
    uuid: row.uuid,
    distinct_id: row.distinct_id,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    is_email_verified: row.is_email_verified,
    hedgehog_config: row.hedgehog_config,
    role_at_organization: row.role_at_organization,
  };
}
