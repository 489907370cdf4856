/**
 * Schemas of the SDK endpoints, for the OpenAPI document. The handlers read and validate the
 * bodies themselves (they arrive gzip-, base64- or form-encoded too) and send pre-rendered JSON,
 * so these never strip or reject anything.
 */
import { Type, type Static } from 'typebox';
import { named, Nullable } from '../kernel/http/shapes.ts';

const FreeObject = (description: string) => Type.Object({}, { additionalProperties: true, description });
const QueryFlag = (description: string) => Type.Optional(Type.String({ description }));

export const FlagsQuery = Type.Object(
  {
    v: Type.Optional(Type.String({ description: 'Response version: 2 (or more) for the detail map; none or 1 for the legacy shape.' })),
    config: QueryFlag('Bare, `true` or `1`: add the config keys (see docs/sdk.md).'),
    only_evaluate_survey_feature_flags: QueryFlag('Only the flags surveys own.'),
    token: Type.Optional(Type.String({ description: 'The project token, when the body has none.' })),
    compression: Type.Optional(Type.String({ description: 'posthog-js: gzip-js or base64 (also recognised from the bytes).' })),
  },
  { additionalProperties: true },
);

export const DecideQuery = Type.Object(
  {
    v: Type.Optional(Type.String({ description: '4: detail map; 3: every flag and payloads; 2: enabled flags; 1 or none: enabled keys.' })),
    only_evaluate_survey_feature_flags: QueryFlag('Only the flags surveys own.'),
    token: Type.Optional(Type.String()),
    compression: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export const FlagsBody = Type.Object(
  {
    token: Type.Optional(Type.String({ description: 'The project token (phc_…); `api_key` also works.' })),
    distinct_id: Type.String({ description: 'Required.' }),
    groups: Type.Optional(FreeObject('Group type → group key.')),
    person_properties: Type.Optional(FreeObject('Merged over the stored person properties (these win).')),
    group_properties: Type.Optional(FreeObject('Group type → properties, merged over the stored ones.')),
    $anon_distinct_id: Type.Optional(Type.String({ description: 'Experience continuity: its hash key is kept for flags that ask for it.' })),
    $device_id: Type.Optional(Type.String({ description: 'Bucketing for flags with bucketing_identifier device_id.' })),
    flag_keys_to_evaluate: Type.Optional(Type.Array(Type.String())),
    evaluation_runtime: Type.Optional(Type.String({ description: 'server or client: flags of the other runtime are left out.' })),
    evaluation_contexts: Type.Optional(Type.Array(Type.String(), { description: 'Flags with evaluation tags need one of these.' })),
    disable_flags: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);

export const FlagsResponse = FreeObject(
  '`{flags: {key: {key, enabled, variant, reason: {code, condition_index, description}, metadata: {id, version, description, payload}}}, ' +
    'errorsWhileComputingFlags, requestId, evaluatedAt}` (v2), or `{featureFlags, featureFlagPayloads, errorsWhileComputingFlags, requestId}`.',
);

export const DefinitionsQuery = Type.Object(
  {
    token: Type.Optional(Type.String({ description: 'The project token (phc_…): picks the project for a personal API key.' })),
    send_cohorts: Type.Optional(Type.String({ description: 'Bare or true: the cohorts the flags use, in `cohorts`.' })),
  },
  { additionalProperties: true },
);

export const DefinitionsResponse = Type.Object(
  {
    flags: Type.Array(FreeObject('PostHog\'s minimal flag: id, team_id, name, key, filters, deleted, active, ensure_experience_continuity, …')),
    group_type_mapping: Type.Record(Type.String(), Type.String()),
    cohorts: FreeObject('Cohort id → property group.'),
  },
  { additionalProperties: true },
);

export const ProjectParams = Type.Object({ project_id: Type.String() });

export const EvaluationReasonsQuery = Type.Object(
  {
    distinct_id: Type.Optional(Type.String({ description: 'Required.' })),
    groups: Type.Optional(Type.String({ description: 'A JSON object: group type → group key.' })),
  },
  { additionalProperties: true },
);

export const EvaluationReason = named(
  'FlagEvaluationReason',
  Type.Object({
    value: Type.Union([Type.Boolean(), Type.String()], { description: 'false, true or the variant key' }),
    evaluation: Type.Object({
      reason: Type.String({ description: 'condition_match, no_condition_match, out_of_rollout_bound, disabled, …' }),
      condition_index: Nullable(Type.Integer()),
    }),
  }),
);
export type EvaluationReason = Static<typeof EvaluationReason>;

export const EvaluationReasonsResponse = Type.Record(Type.String(), EvaluationReason, { description: 'by flag key, every live flag' });

export const MyFlagsQuery = Type.Object(
  { groups: Type.Optional(Type.String({ description: 'A JSON object: group type → group key.' })) },
  { additionalProperties: true },
);

export const OfrepRequest = Type.Object(
  {
    context: Type.Optional(
      FreeObject('`targetingKey` is the distinct id; `groups` and `groupProperties` are PostHog groups; every other attribute is a person property.'),
    ),
  },
  { additionalProperties: true },
);

export const OfrepKeyParams = Type.Object({ key: Type.String() });

export const TestEvaluationBody = Type.Object(
  {
    distinct_id: Type.Optional(Type.String({ minLength: 1, maxLength: 400, description: 'the distinct id to evaluate for (or person_id)' })),
    person_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "the person's uuid (or distinct_id)" })),
    timestamp: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'not supported: only null' })),
    groups: Type.Optional(Type.Object({}, { additionalProperties: Type.String(), description: 'group type → group key' })),
  },
  { additionalProperties: true },
);

export const TestEvaluationResponse = Type.Object({
  flag_key: Type.String(),
  result: Type.Union([Type.Boolean(), Type.String()], { description: 'false, true or the variant key' }),
  reason: Type.String({ description: 'condition_match, no_condition_match, out_of_rollout_bound, flag_disabled, …' }),
  reason_description: Type.Union([Type.String(), Type.Null()]),
  condition_index: Type.Union([Type.Integer(), Type.Null()]),
  payload: Type.Unknown({ description: 'the payload of the value the flag took, parsed; null when none' }),
  person_properties: Type.Object({}, { additionalProperties: true, description: "the person's properties the flag's conditions read" }),
  evaluation_distinct_id: Type.Union([Type.String(), Type.Null()], { description: 'the distinct id sent; null on the person_id path' }),
  conditions: Type.Array(Type.Unknown(), { description: 'per-condition analysis: not computed (always empty)' }),
});

const Properties = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const PlaygroundBody = Type.Object(
  {
    distinct_id: Type.String({ minLength: 1, maxLength: 400, description: 'the distinct id to evaluate for (it decides rollouts and variants)' }),
    person_properties: Type.Optional(Properties('made-up person properties; nothing stored is read')),
    groups: Type.Optional(Type.Object({}, { additionalProperties: Type.String({ maxLength: 400 }), description: 'group type → group key' })),
    group_properties: Type.Optional(
      Type.Object({}, { additionalProperties: Properties('properties of that group'), description: 'group type → made-up group properties' }),
    ),
    flag_keys: Type.Optional(Type.Array(Type.String({ maxLength: 400 }), { maxItems: 1000, description: 'only these flags; every flag when absent' })),
  },
  { additionalProperties: false },
);

export const PlaygroundResponse = Type.Object({
  distinct_id: Type.String(),
  flags: Type.Array(
    Type.Object({
      id: Type.Integer(),
      key: Type.String(),
      name: Type.String(),
      active: Type.Boolean(),
      value: Type.Union([Type.Boolean(), Type.String()], { description: 'false, true or the variant key' }),
      payload: Type.Unknown({ description: 'the payload of the value the flag took, parsed; null when none' }),
      reason: Type.String({ description: 'condition_match, no_condition_match, out_of_rollout_bound, flag_disabled, no_group_type, …' }),
      reason_description: Type.String({ description: 'the reason in words' }),
      condition_index: Nullable(Type.Integer({ description: 'the condition set that decided it, from 0' })),
    }),
    { description: 'newest flag first' },
  ),
  unknown_keys: Type.Array(Type.String(), { description: 'the flag_keys sent that name no live flag' }),
});
