/**
 * A cohort's `filters` as filters.ts checks them: the one description of their shape, typing the
 * validator and, through the OpenAPI components CohortFilters, CohortPropertyGroup and
 * CohortProperty, the console. A group nests groups to any depth: OpenAPI refers to the group's
 * component from inside it, and TypeScript needs the recursive interface written out.
 */
import { Type, type Static } from 'typebox';
import { named, OpenShape } from '../kernel/http/shapes.ts';

export const CohortProperty = OpenShape(
  'CohortProperty',
  {
    type: Type.Enum(['person', 'cohort', 'behavioral', 'event']),
    key: Type.Union([Type.String(), Type.Number()], { description: 'the person property; `id` for `type: cohort`' }),
    value: Type.Optional(Type.Unknown({ description: 'what the operator compares with; the other cohort’s id for `type: cohort`' })),
    operator: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    negation: Type.Optional(Type.Boolean()),
  },
  { description: 'A person property, membership of another cohort, or a filter on events (`behavioral`, stored as sent).' },
);
export type CohortProperty = Static<typeof CohortProperty>;

export interface CohortPropertyGroup {
  type: 'AND' | 'OR';
  values: Array<CohortProperty | CohortPropertyGroup>;
}

const GROUP = 'CohortPropertyGroup';

export const CohortPropertyGroup = named(
  GROUP,
  Type.Unsafe<CohortPropertyGroup>(
    Type.Object({
      type: Type.Enum(['AND', 'OR']),
      values: Type.Array(Type.Union([Type.Unsafe({ $ref: `#/components/schemas/${GROUP}` }), CohortProperty])),
    }),
  ),
);

/** A static cohort without criteria has none (`{}`). */
export const CohortFilters = named('CohortFilters', Type.Object({ properties: Type.Optional(CohortPropertyGroup) }));
export type CohortFilters = Static<typeof CohortFilters>;
