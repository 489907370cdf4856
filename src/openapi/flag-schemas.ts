import { FLAG_OPERATORS, OPERATOR_ALIASES } from '../targeting/operators.ts';
import type { SchemaObject } from './schema-object.ts';

const ref = (name: string): SchemaObject => ({ $ref: `#/components/schemas/${name}` });
const percentage: SchemaObject = { type: 'number', minimum: 0, maximum: 100 };
const groupTypeIndex: SchemaObject = { type: 'integer', minimum: 0, maximum: 4, nullable: true };

/**
 * The shapes inside a flag's `filters`, as flags/validation checks them (unknown keys are kept as
 * sent, so every object allows more). Documentation only: validation stays in flags/validation.
 */
export const FLAG_SCHEMAS: Readonly<Record<string, SchemaObject>> = {
  FlagProperty: {
    type: 'object',
    description: 'One condition on a person, group, cohort or flag property.',
    required: ['key'],
    additionalProperties: true,
    properties: {
      key: { type: 'string', description: 'the property name; a cohort id for `type: cohort`, a flag id for `type: flag`' },
      value: { description: 'what the operator compares with: a string, number, boolean or a list of them' },
      operator: { type: 'string', nullable: true, enum: [...FLAG_OPERATORS, ...Object.keys(OPERATOR_ALIASES), null], default: 'exact' },
      type: { type: 'string', enum: ['person', 'group', 'cohort', 'flag'], description: 'group properties only on a flag aggregated by that group type' },
      group_type_index: groupTypeIndex,
      negation: { type: 'boolean' },
    },
  },
  FlagConditionGroup: {
    type: 'object',
    description: 'A condition set: who matches (every property) and how many of them get the flag.',
    additionalProperties: true,
    properties: {
      properties: { type: 'array', items: ref('FlagProperty') },
      rollout_percentage: { ...percentage, nullable: true, description: 'null: everyone who matches' },
      variant: { type: 'string', nullable: true, description: 'a variant key of `multivariate` that everyone matching gets' },
      aggregation_group_type_index: groupTypeIndex,
      description: { type: 'string', nullable: true },
    },
  },
  FlagVariant: {
    type: 'object',
    required: ['key', 'rollout_percentage'],
    additionalProperties: true,
    properties: {
      key: { type: 'string', minLength: 1, description: 'unique among the variants' },
      name: { type: 'string', nullable: true },
      rollout_percentage: { ...percentage, description: "the variants' percentages add up to 100" },
    },
  },
  FlagMultivariate: {
    type: 'object',
    required: ['variants'],
    additionalProperties: true,
    nullable: true,
    properties: { variants: { type: 'array', items: ref('FlagVariant') } },
  },
  FlagFilters: {
    type: 'object',
    description: "Who gets the flag: condition sets (`groups`, any of them matches), variants and payloads.",
    additionalProperties: true,
    properties: {
      groups: { type: 'array', items: ref('FlagConditionGroup') },
      multivariate: ref('FlagMultivariate'),
      payloads: {
        type: 'object',
        description: 'by variant key (or `true` for a boolean flag): a JSON value, sent as JSON text or as the value itself; stored and answered as JSON text',
        additionalProperties: {},
      },
      aggregation_group_type_index: { ...groupTypeIndex, description: 'null: the flag is per person; 0–4: per group of that type' },
      super_groups: { type: 'array', nullable: true, items: ref('FlagConditionGroup') },
      holdout_groups: { type: 'array', nullable: true, items: ref('FlagConditionGroup') },
    },
  },
};
