import { Type } from 'typebox';
import { CohortResponse } from '../../cohorts/schemas.ts';
import { FlagWriteBody } from '../schemas.ts';

export { FlagParams, ProjectParams } from '../schemas.ts';

/** The body of these actions is documented as the flag's writable fields; they are accepted and not used. */
export const ActionBody = FlagWriteBody;

export const IdOrKeyParams = Type.Object({ project_id: Type.String(), id: Type.String({ description: 'a flag id or key' }) });

export const StaticCohortResponse = Type.Object({ cohort: CohortResponse });

export const SuccessResponse = Type.Object({ success: Type.Boolean() });

export const DependentsResponse = Type.Object({
  has_active_dependents: Type.Boolean(),
  dependent_flags: Type.Array(Type.Object({ id: Type.Integer(), key: Type.String(), name: Type.String() })),
});

export const RemoteConfigResponse = Type.Union([Type.String(), Type.Null()], {
  description: 'payloads["true"] as stored: a JSON-encoded string, or null',
});

export const StatusResponse = Type.Object({
  status: Type.String({ description: 'active, stale, inactive or deleted' }),
  reason: Type.String(),
});

export const PersonsServedResponse = Type.Object({
  persons: Type.Integer({ description: 'distinct persons that reported $feature_flag_called for the flag in the window' }),
  hours: Type.Integer({ description: 'the window, in hours before now' }),
});

export const BulkKeysBody = Type.Object(
  {
    ids: Type.Optional(
      Type.Array(Type.Unknown(), { maxItems: 10_000, description: 'flag ids: integers or strings of digits; anything else is ignored with a warning' }),
    ),
  },
  { additionalProperties: true },
);

export const BulkKeysResponse = Type.Object({
  keys: Type.Record(Type.String(), Type.String()),
  warning: Type.Optional(Type.String()),
});

export const BlastRadiusBody = Type.Object(
  {
    ...FlagWriteBody.properties,
    condition: Type.Optional(
      Type.Unknown({ description: '{"properties": [...], "rollout_percentage"?: n} — a condition set; the rollout is not applied' }),
    ),
    group_type_index: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 4 }), Type.Null()])),
  },
  { additionalProperties: true },
);

export const BlastRadiusResponse = Type.Object({ users_affected: Type.Integer(), total_users: Type.Integer() });
