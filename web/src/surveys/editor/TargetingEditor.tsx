import { Button } from '../../ui/Button.tsx';
import { Field, Input, Select } from '../../ui/Field.tsx';
import { ConditionSetEditor } from '../../flags/editor/ConditionSetEditor.tsx';
import type { EditorChoices } from '../../flags/editor/PropertyFilterRow.tsx';
import { newUid, type FiltersForm } from '../../flags/filters-form.ts';
import { newProperty } from '../../flags/property-operators.ts';
import type { FeatureFlag } from '../../api/types.ts';
import { withKey, type SurveyForm } from '../survey-form.ts';
import type { Json } from '../types.ts';

const MATCH_TYPES = [
  { value: 'icontains', label: 'contains' },
  { value: 'not_icontains', label: 'does not contain' },
  { value: 'exact', label: 'is exactly' },
  { value: 'is_not', label: 'is not' },
  { value: 'regex', label: 'matches regex' },
  { value: 'not_regex', label: 'does not match regex' },
];

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

interface TargetingEditorProps {
  form: SurveyForm;
  onChange: (changes: Partial<SurveyForm>) => void;
  choices: EditorChoices;
  flags: FeatureFlag[];
  errors: (path: string) => string | null;
}

/** Where and to whom the survey shows: URL, selector, wait period, linked flag and variant, person properties. */
export function TargetingEditor({ form, onChange, choices, flags, errors }: TargetingEditorProps) {
  const conditions = form.conditions ?? {};
  const setCondition = (key: string, next: unknown) => {
    const updated: Json = withKey(conditions, key, next);
    onChange({ conditions: Object.keys(updated).length === 0 && form.conditions === null ? null : updated });
  };
  const linked = flags.find((flag) => flag.id === form.linkedFlagId);
  const variants = linked?.filters.multivariate?.variants?.map((variant) => variant.key) ?? [];
  const targeting = form.targeting;
  const groups = targeting?.groups ?? [];
  const setTargeting = (next: FiltersForm | null) => onChange({ targeting: next });
  return (
    <div className="stack">
      {errors('conditions') ? (
        <div className="field-error" role="alert">
          {errors('conditions')}
        </div>
      ) : null}
      <div className="form-grid">
        <Field label="Page URL" hint="Only on pages whose address matches; empty: every page.">
          {(control) => <Input {...control} className="mono" value={str(conditions.url)} placeholder="/pricing" onChange={(event) => setCondition('url', event.target.value === '' ? undefined : event.target.value)} />}
        </Field>
        <Field label="URL match">
          {(control) => (
            <Select {...control} options={MATCH_TYPES} value={str(conditions.urlMatchType) || 'icontains'} onChange={(event) => setCondition('urlMatchType', event.target.value)} />
          )}
        </Field>
        <Field label="CSS selector" hint="Only when an element matching it is on the page.">
          {(control) => <Input {...control} className="mono" value={str(conditions.selector)} placeholder="#checkout" onChange={(event) => setCondition('selector', event.target.value === '' ? undefined : event.target.value)} />}
        </Field>
        <Field label="Wait period (days)" hint="Not to people who saw any survey in the last N days.">
          {(control) => (
            <Input
              {...control}
              type="number"
              min={0}
              value={typeof conditions.seenSurveyWaitPeriodInDays === 'number' ? String(conditions.seenSurveyWaitPeriodInDays) : ''}
              onChange={(event) => setCondition('seenSurveyWaitPeriodInDays', event.target.value === '' ? undefined : Math.max(0, Math.floor(Number(event.target.value))))}
            />
          )}
        </Field>
      </div>
      <div className="form-grid">
        <Field label="Linked feature flag" hint="Only to people for whom this flag is on." error={errors('linked_flag_id')}>
          {(control) => (
            <Select
              {...control}
              options={[{ value: '', label: 'None' }, ...flags.map((flag) => ({ value: String(flag.id), label: flag.key }))]}
              value={form.linkedFlagId === null ? '' : String(form.linkedFlagId)}
              onChange={(event) => {
                const id = event.target.value === '' ? null : Number(event.target.value);
                onChange({ linkedFlagId: id, conditions: id === null && conditions.linkedFlagVariant !== undefined ? withKey(conditions, 'linkedFlagVariant', undefined) : form.conditions });
              }}
            />
          )}
        </Field>
        {linked && variants.length > 0 ? (
          <Field label="Variant">
            {(control) => (
              <Select
                {...control}
                options={[{ value: '', label: 'Any variant' }, ...variants.map((variant) => ({ value: variant, label: variant }))]}
                value={str(conditions.linkedFlagVariant) === 'any' ? '' : str(conditions.linkedFlagVariant)}
                onChange={(event) => setCondition('linkedFlagVariant', event.target.value === '' ? undefined : event.target.value)}
              />
            )}
          </Field>
        ) : null}
      </div>
      <div className="stack-sm">
        <h3 className="field-label">Person properties</h3>
        {errors('targeting_flag_filters') ? (
          <div className="field-error" role="alert">
            {errors('targeting_flag_filters')}
          </div>
        ) : null}
        {groups.length === 0 ? <p className="muted">Everyone who matches the conditions above. Add filters to narrow it to some people.</p> : null}
        {groups.map((condition, index) => (
          <ConditionSetEditor
            key={condition.uid}
            condition={condition}
            index={index}
            choices={choices}
            variantKeys={[]}
            onChange={(next) => setTargeting({ ...targeting!, groups: groups.map((item, i) => (i === index ? next : item)) })}
            onRemove={() => setTargeting(groups.length === 1 ? null : { ...targeting!, groups: groups.filter((_, i) => i !== index) })}
            onDuplicate={() => setTargeting({ ...targeting!, groups: [...groups, { ...structuredClone(condition), uid: newUid('g') }] })}
            issues={() => []}
          />
        ))}
        <div>
          <Button
            onClick={() =>
              setTargeting({
                ...(targeting ?? { payloadsPresent: false, otherPayloads: {}, extra: {} }),
                groups: [...groups, { uid: newUid('g'), properties: [newProperty('person')], rollout_percentage: 100, extra: {} }],
              })
            }
          >
            + Add person filters
          </Button>
        </div>
      </div>
    </div>
  );
}
