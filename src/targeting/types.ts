/**
 * The shapes inside a flag's `filters`, as flags/validation checks them and the engine reads them.
 * One description: the validator's and the engine's types (`Static`), the OpenAPI components
 * (FlagFilters, FlagConditionGroup…) and, through the generated types, the console's. Unknown keys
 * are kept as sent, so every object takes more.
 */
import { Type, type Static, type TSchemaOptions } from 'typebox';
import { Nullable, OpenShape } from '../kernel/http/shapes.ts';
import { FLAG_OPERATORS, OPERATOR_ALIASES } from './operators.ts';

const Percentage = (options: TSchemaOptions = {}) => Type.Number({ minimum: 0, maximum: 100, ...options });
const GroupTypeIndex = (options: TSchemaOptions = {}) => Nullable(Type.Integer({ minimum: 0, maximum: 4 }), options);

export const FlagProperty = OpenShape(
  'FlagProperty',
  {
    key: Type.Union([Type.String(), Type.Number()], {
      description: 'the property name; a cohort id for `type: cohort`, a flag id for `type: flag`',
    }),
    value: Type.Optional(Type.Unknown({ description: 'what the operator compares with: a string, number, boolean or a list of them' })),
    operator: Type.Optional(
      Nullable(Type.String({ enum: [...FLAG_OPERATORS, ...Object.keys(OPERATOR_ALIASES)] }), { description: 'absent or null: exact' }),
    ),
    type: Type.Optional(
      Type.String({ enum: ['person', 'group', 'cohort', 'flag'], description: 'group properties only on a flag aggregated by that group type' }),
    ),
    group_type_index: Type.Optional(GroupTypeIndex()),
    negation: Type.Optional(Type.Boolean()),
  },
  { description: 'One condition on a person, group, cohort or flag property.' },
);
export type FlagProperty = Static<typeof FlagProperty>;

export const FlagGroup = OpenShape(
  'FlagConditionGroup',
  {
    properties: Type.Optional(Type.Array(FlagProperty)),
    rollout_percentage: Type.Optional(Nullable(Percentage(), { description: 'null: everyone who matches' })),
    variant: Type.Optional(Nullable(Type.String(), { description: 'a variant key of `multivariate` that everyone matching gets' })),
    aggregation_group_type_index: Type.Optional(GroupTypeIndex()),
    description: Type.Optional(Nullable(Type.String())),
  },
  { description: 'A condition set: who matches (every property) and how many of them get the flag.' },
);
export type FlagGroup = Static<typeof FlagGroup>;

export const FlagVariant = OpenShape('FlagVariant', {
  key: Type.String({ minLength: 1, description: 'unique among the variants' }),
  name: Type.Optional(Nullable(Type.String())),
  rollout_percentage: Percentage({ description: "the variants' percentages add up to 100" }),
});
export type FlagVariant = Static<typeof FlagVariant>;

export const FlagMultivariate = OpenShape('FlagMultivariate', { variants: Type.Array(FlagVariant) });

export const FlagFilters = OpenShape(
  'FlagFilters',
  {
    groups: Type.Optional(Type.Array(FlagGroup)),
    multivariate: Type.Optional(Nullable(FlagMultivariate)),
    payloads: Type.Optional(
      // Sent as any JSON value, stored and answered as JSON text: the validator's type is the stored one.
      Type.Unsafe<Record<string, string>>(
        Type.Record(Type.String(), Type.Unknown(), {
          description:
            'by variant key (or `true` for a boolean flag): a JSON value, sent as JSON text or as the value itself; stored and answered as JSON text',
        }),
      ),
    ),
    aggregation_group_type_index: Type.Optional(GroupTypeIndex({ description: 'null: the flag is per person; 0–4: per group of that type' })),
    super_groups: Type.Optional(Nullable(Type.Array(FlagGroup))),
    holdout_groups: Type.Optional(Nullable(Type.Array(FlagGroup))),
  },
  { description: 'Who gets the flag: condition sets (`groups`, any of them matches), variants and payloads.' },
);
export type FlagFilters = Static<typeof FlagFilters>;

export type EvaluationRuntime = 'server' | 'client' | 'all' | 'both';
