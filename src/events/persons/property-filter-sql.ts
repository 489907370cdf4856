/** Property filters (property-filter.ts) as SQL over jsonb columns, for the persons and the events lists. */
import type { PropertyCondition, PropertyGroup, PropertyOwner } from './property-filter.ts';

/** Collects parameters and hands out their placeholders. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The jsonb expression holding each owner's properties in the query at hand. */
export type PropertyColumns = Partial<Record<PropertyOwner, string>>;

// A property's text counts as a number when it reads as one; CASE keeps the cast from failing.
const NUMERIC_TEXT = `'^\\s*[-+]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][-+]?\\d+)?\\s*$'`;
const COMPARISON = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

function conditionSql(condition: PropertyCondition, params: Params, columns: PropertyColumns): string {
  // A missing column (an event without a person) reads as '{}': every property unset.
  const column = `coalesce(${columns[condition.owner] ?? 'NULL'}, '{}'::jsonb)`;
  const key = `${params.add(condition.key)}::text`;
  const text = `(${column} ->> ${key})`;
  switch (condition.operator) {
    case 'exact':
      return `coalesce(${text} = ANY(${params.add(condition.values)}::text[]), false)`;
    case 'is_not':
      return `NOT coalesce(${text} = ANY(${params.add(condition.values)}::text[]), false)`;
    case 'icontains':
      return `coalesce(strpos(lower(${text}), lower(${params.add(condition.value)}::text)) > 0, false)`;
    case 'not_icontains':
      return `NOT coalesce(strpos(lower(${text}), lower(${params.add(condition.value)}::text)) > 0, false)`;
    // A property holding null counts as not set.
    case 'is_set':
      return `coalesce(jsonb_typeof(${column} -> ${key}), 'null') <> 'null'`;
    case 'is_not_set':
      return `coalesce(jsonb_typeof(${column} -> ${key}), 'null') = 'null'`;
    default: {
      const op = COMPARISON[condition.operator];
      const value = params.add(condition.value);
      if (!condition.numeric) return `coalesce(${text} ${op} ${value}::text, false)`;
      return `(CASE WHEN ${text} ~ ${NUMERIC_TEXT} THEN ${text}::numeric ${op} ${value}::numeric ELSE false END)`;
    }
  }
}

export function propertyGroupSql(group: PropertyGroup, params: Params, columns: PropertyColumns): string {
  if (group.items.length === 0) return 'true';
  const parts = group.items.map((item) => (item.kind === 'group' ? propertyGroupSql(item, params, columns) : conditionSql(item, params, columns)));
  return `(${parts.join(` ${group.join} `)})`;
}

/** Whether any condition of the group reads this owner's properties. */
export function readsOwner(group: PropertyGroup, owner: PropertyOwner): boolean {
  return group.items.some((item) => (item.kind === 'group' ? readsOwner(item, owner) : item.owner === owner));
}
