import { Button } from '../../ui/Button.tsx';
import { Field, Input, Select } from '../../ui/Field.tsx';
import type { ConditionForm, PropertyForm } from '../filters-form.ts';
import { newProperty } from '../property-operators.ts';
import { PropertyFilterRow, type EditorChoices } from './PropertyFilterRow.tsx';

interface ConditionSetEditorProps {
  condition: ConditionForm;
  index: number;
  choices: EditorChoices;
  /** Variant keys of a multivariate flag (an override picks one); empty for boolean flags. */
  variantKeys: string[];
  onChange: (condition: ConditionForm) => void;
  /** Without these, the set has no Remove or Duplicate button (a scheduled change adds one set). */
  onRemove?: () => void;
  onDuplicate?: () => void;
  /** Messages for a place inside this condition set (`rollout_percentage`, `properties__0__key`, or '' for the set). */
  issues: (subpath: string) => string[];
}

export function ConditionSetEditor({ condition, index, choices, variantKeys, onChange, onRemove, onDuplicate, issues }: ConditionSetEditorProps) {
  const name = `Condition set ${index + 1}`;
  const properties = condition.properties ?? [];
  const setProperties = (next: PropertyForm[]) => onChange({ ...condition, properties: next });
  const rollout = condition.rollout_percentage;
  const first = (subpath: string) => issues(subpath)[0] ?? null;
  const setIssues = issues('');
  return (
    <section className="panel condition-set" aria-label={name}>
      <div className="panel-header">
        <h3>{name}</h3>
        {onDuplicate || onRemove ? (
          <div className="row">
            {onDuplicate ? (
              <Button size="sm" variant="ghost" onClick={onDuplicate}>
                Duplicate
              </Button>
            ) : null}
            {onRemove ? (
              <Button size="sm" variant="ghost" onClick={onRemove} aria-label={`Remove ${name}`}>
                Remove
              </Button>
            ) : null}
          </div>
        ) : null}
      </div>
      {setIssues.map((message) => (
        <div key={message} className="field-error" role="alert">
          {message}
        </div>
      ))}
      <Field label={`${name}: description`} hideLabel>
        {(control) => (
          <Input
            {...control}
            placeholder="Description (optional), e.g. Internal users"
            value={condition.description ?? ''}
            onChange={(event) => onChange({ ...condition, description: event.target.value === '' && condition.description === undefined ? undefined : event.target.value })}
          />
        )}
      </Field>
      <div className="condition-properties">
        {properties.length === 0 ? <p className="muted condition-everyone">Matches everyone{choices.aggregation !== null ? ' (every group)' : ''}. Add a filter to narrow it down.</p> : null}
        {properties.map((property, p) => (
          <div key={property.uid} className="condition-property">
            <span className="condition-joiner" aria-hidden="true">
              {p === 0 ? 'Match' : 'and'}
            </span>
            <PropertyFilterRow
              property={property}
              label={`${name}, filter ${p + 1}`}
              choices={choices}
              onChange={(next) => setProperties(properties.map((item, i) => (i === p ? next : item)))}
              onRemove={() => setProperties(properties.filter((_, i) => i !== p))}
              issue={(field) => first(`properties__${p}__${field}`) ?? first(`properties__${p}`)}
            />
          </div>
        ))}
        <div>
          <Button size="sm" onClick={() => setProperties([...properties, newProperty(choices.aggregation !== null ? 'group' : 'person', choices.aggregation)])}>
            + Add filter
          </Button>
        </div>
      </div>
      <div className="condition-rollout">
        <Field
          label="Roll out to"
          hint={`${rollout === null || rollout === undefined ? 100 : rollout}% of ${choices.aggregation !== null ? 'groups' : 'users'} who match`}
          error={first('rollout_percentage')}
        >
          {(control) => (
            <div className="rollout-input">
              <input
                type="range"
                min={0}
                max={100}
                step={1}
                aria-label={`${name}: rollout percentage slider`}
                value={rollout ?? 100}
                onChange={(event) => onChange({ ...condition, rollout_percentage: Number(event.target.value) })}
              />
              <Input
                {...control}
                type="number"
                min={0}
                max={100}
                step="any"
                className="rollout-number"
                value={rollout === null || rollout === undefined ? '' : String(rollout)}
                placeholder="100"
                onChange={(event) => onChange({ ...condition, rollout_percentage: event.target.value === '' ? null : Number(event.target.value) })}
              />
              <span aria-hidden="true">%</span>
            </div>
          )}
        </Field>
        {variantKeys.length > 0 ? (
          <Field label="Variant" hint="Everyone this set matches gets this variant." error={first('variant')}>
            {(control) => (
              <Select
                {...control}
                options={[{ value: '', label: 'Split by the variant rollout' }, ...variantKeys.map((key) => ({ value: key, label: key }))]}
                value={condition.variant ?? ''}
                onChange={(event) => onChange({ ...condition, variant: event.target.value === '' ? null : event.target.value })}
              />
            )}
          </Field>
        ) : null}
      </div>
    </section>
  );
}
