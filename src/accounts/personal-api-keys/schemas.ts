import { Type, type Static } from 'typebox';
import { NullableTimestamp, Timestamp } from '../organizations/schemas.ts';

const INT32_MAX = 2147483647;

export const PersonalApiKeyParams = Type.Object({
  id: Type.String({ description: "The key's id (a UUID)." }),
});
export type PersonalApiKeyParams = Static<typeof PersonalApiKeyParams>;

export const PersonalApiKey = Type.Object({
  id: Type.String({ format: 'uuid' }),
  label: Type.String(),
  mask_value: Type.String({ description: 'The first and last four characters of the key (`phx_...abcd`).' }),
  scopes: Type.Array(Type.String()),
  scoped_teams: Type.Array(Type.Integer(), {
    description: 'The projects the key is limited to; empty when it reaches every project of its organizations.',
  }),
  scoped_organizations: Type.Array(Type.String({ format: 'uuid' }), {
    description: "The organizations the key is limited to; empty when it reaches every organization of its user.",
  }),
  user_id: Type.Integer(),
  created_at: Timestamp,
  last_used_at: NullableTimestamp,
  last_rolled_at: NullableTimestamp,
});
export type PersonalApiKey = Static<typeof PersonalApiKey>;

export const CreatedPersonalApiKey = Type.Object({
  ...PersonalApiKey.properties,
  value: Type.String({ description: 'The key itself. Shown in this response only; it is stored as a hash.' }),
});
export type CreatedPersonalApiKey = Static<typeof CreatedPersonalApiKey>;

export const CreatePersonalApiKeyBody = Type.Object({
  label: Type.String({ minLength: 1, maxLength: 40 }),
  scopes: Type.Array(Type.String(), {
    description: "Scopes such as `feature_flag:read` or `survey:write`, or `*` for everything. `write` implies `read`.",
  }),
  scoped_teams: Type.Optional(
    Type.Union([Type.Array(Type.Integer({ minimum: 1, maximum: INT32_MAX })), Type.Null()], {
      description: 'Limit the key to these projects (ids of projects the caller can reach).',
    }),
  ),
  scoped_organizations: Type.Optional(
    Type.Union([Type.Array(Type.String({ format: 'uuid' })), Type.Null()], {
      description: 'Limit the key to these organizations (ones the caller belongs to).',
    }),
  ),
});
export type CreatePersonalApiKeyBody = Static<typeof CreatePersonalApiKeyBody>;
