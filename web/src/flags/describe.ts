/** Release conditions in words, for the flag's page. Pure. */
import type { FlagOperator } from '../../../src/targeting/operators.ts';
import type { FlagProperty } from '../api/types.ts';
import { listValues, OPERATOR_LABELS, valueKind } from './property-operators.ts';

export interface Names {
  cohort: (id: string) => string;
  flag: (id: string) => string;
}

const quoted = (value: string) => `“${value}”`;

export function describeProperty(property: FlagProperty, names: Names): string {
  const operator = property.operator ?? (property.type === 'cohort' ? 'in' : 'exact');
  const label = OPERATOR_LABELS[operator as FlagOperator] ?? operator;
  const negated = property.negation ? 'not ' : '';
  switch (valueKind(property.type, operator)) {
    case 'cohort':
      return `${negated}${label} ${quoted(names.cohort(String(property.value)))}`;
    case 'flag':
      return `flag ${quoted(names.flag(String(property.key)))} ${label} ${String(property.value)}`;
    case 'none':
      return `${property.key} ${label}`;
    case 'list':
      return `${property.key} ${label} ${listValues(property.value).map(quoted).join(' or ')}`;
    default:
      return `${property.key} ${label} ${quoted(String(property.value ?? ''))}`;
  }
}
