import type { Cohort, FeatureFlag, GroupType } from '../../api/types.ts';
import { ChipsInput } from '../../ui/ChipsInput.tsx';
import { Field, Input, Select, type Option } from '../../ui/Field.tsx';
import type { PropertyForm } from '../filters-form.ts';
import {
  flagValueFromOption,
  flagValueOption,
  listValues,
  OPERATOR_LABELS,
  operatorsFor,
  valueKind,
  withOperator,
  withType,
  type PropertyType,
} from '../property-operators.ts';

/** What a condition's property rows can refer to. */
export interface EditorChoices {
  cohorts: Cohort[];
  flags: FeatureFlag[];
  groupTypes: GroupType[];
  /** The flag being edited (it cannot depend on itself). */
  flagId: number | null;
  /** The group type the flag aggregates by, or null for persons. */
  aggregation: number | null;
  /** The kinds of filter offered (cohort filters offer persons and cohorts only). */
  types?: PropertyType[];
}

interface RowProps {
  property: PropertyForm;
  /** "Condition set 1, filter 2": names every control of the row for screen readers. */
  label: string;
  choices: EditorChoices;
  onChange: (property: PropertyForm) => void;
  onRemove: () => void;
  issue: (field: 'key' | 'value') => string | null;
}

const TYPE_LABELS: Record<string, string> = { person: 'Person', cohort: 'Cohort', flag: 'Feature flag' };

function typeOptions(aggregation: number | null, groupTypes: GroupType[], types: PropertyType[] = ['person', 'cohort', 'flag']): Option[] {
  if (aggregation !== null) {
    const name = groupTypes.find((type) => type.group_type_index === aggregation)?.group_type ?? `group type ${aggregation}`;
    return [{ value: 'group', label: name }];
  }
  return types.map((value) => ({ value, label: TYPE_LABELS[value] ?? value }));
}

function flagVariants(flag: FeatureFlag | undefined): string[] {
  return flag?.filters.multivariate?.variants?.map((variant) => variant.key) ?? [];
}

function ValueInput({ property, label, choices, onChange, error }: { property: PropertyForm; label: string; choices: EditorChoices; onChange: (property: PropertyForm) => void; error: string | null }) {
  const kind = valueKind(property.type, property.operator);
  const set = (value: unknown) => onChange({ ...property, value });
  switch (kind) {
    case 'none':
      return <span className="muted property-no-value">no value needed</span>;
    case 'cohort': {
      const options: Option[] = [{ value: '', label: 'Choose a cohort…' }, ...choices.cohorts.map((cohort) => ({ value: String(cohort.id), label: cohort.name || `Cohort ${cohort.id}` }))];
      const current = property.value === undefined || property.value === null ? '' : String(property.value);
      if (current && !options.some((option) => option.value === current)) options.push({ value: current, label: `Cohort ${current}` });
      return (
        <Field label={`${label}: cohort`} hideLabel error={error}>
          {(control) => <Select {...control} options={options} value={current} onChange={(event) => set(event.target.value === '' ? '' : Number(event.target.value))} />}
        </Field>
      );
    }
    case 'flag': {
      const dependency = choices.flags.find((flag) => String(flag.id) === String(property.key));
      const options: Option[] = [
        { value: 'true', label: 'true (enabled)' },
        { value: 'false', label: 'false (disabled)' },
        ...flagVariants(dependency).map((variant) => ({ value: variant, label: `variant "${variant}"` })),
      ];
      const current = flagValueOption(property.value);
      if (!options.some((option) => option.value === current)) options.push({ value: current, label: current });
      return (
        <Field label={`${label}: flag value`} hideLabel error={error}>
          {(control) => <Select {...control} options={options} value={current} onChange={(event) => set(flagValueFromOption(event.target.value))} />}
        </Field>
      );
    }
    case 'list':
      return (
        <Field label={`${label}: values`} hideLabel error={error}>
          {(control) => <ChipsInput {...control} values={listValues(property.value)} onChange={set} />}
        </Field>
      );
    case 'date':
      return (
        <Field label={`${label}: date`} hideLabel error={error}>
          {(control) => <Input {...control} placeholder="2025-01-31 or -30d" value={String(property.value ?? '')} onChange={(event) => set(event.target.value)} />}
        </Field>
      );
    default:
      return (
        <Field label={`${label}: value`} hideLabel error={error}>
          {(control) => (
            <Input
              {...control}
              inputMode={kind === 'number' ? 'decimal' : undefined}
              placeholder={kind === 'number' ? 'A number' : property.operator?.startsWith('semver') ? '1.2.3' : 'Value'}
              value={String(property.value ?? '')}
              onChange={(event) => set(event.target.value)}
            />
          )}
        </Field>
      );
  }
}

export function PropertyFilterRow({ property, label, choices, onChange, onRemove, issue }: RowProps) {
  const type = (property.type ?? 'person') as PropertyType;
  const operators = operatorsFor(type);
  const operator = property.operator ?? (type === 'cohort' ? 'in' : 'exact');
  const types = typeOptions(choices.aggregation, choices.groupTypes, choices.types);
  if (!types.some((option) => option.value === type)) types.push({ value: type, label: type });
  const flagOptions: Option[] = [
    { value: '', label: 'Choose a flag…' },
    ...choices.flags.filter((flag) => flag.id !== choices.flagId).map((flag) => ({ value: String(flag.id), label: flag.key })),
  ];
  return (
    <div className="property-row">
      <Field label={`${label}: what to match`} hideLabel className="property-type">
        {(control) => (
          <Select {...control} options={types} value={type} onChange={(event) => onChange(withType(property, event.target.value as PropertyType, choices.aggregation))} />
        )}
      </Field>
      {type === 'cohort' ? null : type === 'flag' ? (
        <Field label={`${label}: flag`} hideLabel error={issue('key')} className="property-key">
          {(control) => <Select {...control} options={flagOptions} value={String(property.key)} onChange={(event) => onChange({ ...property, key: event.target.value })} />}
        </Field>
      ) : (
        <Field label={`${label}: property name`} hideLabel error={issue('key')} className="property-key">
          {(control) => (
            <Input {...control} list="bw-person-properties" placeholder="Property, e.g. email" value={String(property.key)} onChange={(event) => onChange({ ...property, key: event.target.value })} />
          )}
        </Field>
      )}
      <Field label={`${label}: operator`} hideLabel className="property-operator">
        {(control) => (
          <Select
            {...control}
            options={operators.map((value) => ({ value, label: OPERATOR_LABELS[value] }))}
            value={operator}
            onChange={(event) => onChange(withOperator(property, event.target.value))}
          />
        )}
      </Field>
      <div className="property-value">
        <ValueInput property={property} label={label} choices={choices} onChange={onChange} error={issue('value')} />
      </div>
      <button type="button" className="icon-button property-remove" aria-label={`Remove ${label}`} onClick={onRemove}>
        ×
      </button>
    </div>
  );
}
