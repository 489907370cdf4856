import { Button } from '../../ui/Button.tsx';
import { Field, Input, TextArea } from '../../ui/Field.tsx';
import { newUid, type FiltersForm, type VariantForm } from '../filters-form.ts';
import { evenSplit, variantSum } from '../filters-issues.ts';

interface ServedValueEditorProps {
  filters: FiltersForm;
  onChange: (filters: FiltersForm) => void;
  /** The messages at an attr-style path under `filters__`. */
  issues: (path: string) => string[];
}

function withEvenSplit(variants: VariantForm[]): VariantForm[] {
  const split = evenSplit(variants.length);
  return variants.map((variant, index) => ({ ...variant, rollout_percentage: split[index] }));
}

/** Boolean or multivariate; the variants with their split and payloads; the boolean payload. */
export function ServedValueEditor({ filters, onChange, issues }: ServedValueEditorProps) {
  const variants = filters.multivariate?.variants ?? [];
  const multivariate = filters.multivariate !== null && filters.multivariate !== undefined;
  const setVariants = (next: VariantForm[]) => onChange({ ...filters, multivariate: { variants: next, extra: filters.multivariate?.extra ?? {} } });
  const sum = variantSum(filters);
  const sumOk = Math.abs(sum - 100) <= 0.01;
  const first = (path: string) => issues(path)[0] ?? null;

  const chooseBoolean = () => {
    // A variant override names a variant that no longer exists once the flag is boolean.
    const groups = filters.groups?.map((group) => (group.variant ? { ...group, variant: null } : group));
    onChange({ ...filters, groups, multivariate: filters.multivariate === undefined ? undefined : null });
  };
  const chooseMultivariate = () => {
    if (multivariate) return;
    setVariants(
      withEvenSplit([
        { uid: newUid('v'), key: 'control', name: null, rollout_percentage: 50, extra: {} },
        { uid: newUid('v'), key: 'test', name: null, rollout_percentage: 50, extra: {} },
      ]),
    );
  };

  return (
    <div className="stack">
      <fieldset className="segmented" aria-label="Served value">
        <legend className="visually-hidden">Served value</legend>
        <label className={`segment${multivariate ? '' : ' segment-on'}`}>
          <input type="radio" name="served-value" checked={!multivariate} onChange={chooseBoolean} />
          Boolean (on or off)
        </label>
        <label className={`segment${multivariate ? ' segment-on' : ''}`}>
          <input type="radio" name="served-value" checked={multivariate} onChange={chooseMultivariate} />
          Multiple variants
        </label>
      </fieldset>

      {multivariate ? (
        <div className="stack-sm">
          <div className="variants" role="group" aria-label="Variants">
            <div className="variant-row variant-head" aria-hidden="true">
              <span>Key</span>
              <span>Description</span>
              <span>Rollout</span>
              <span>Payload (JSON)</span>
              <span />
            </div>
            {variants.map((variant, index) => {
              const label = `Variant ${index + 1}`;
              const update = (changes: Partial<VariantForm>) => setVariants(variants.map((item, i) => (i === index ? { ...item, ...changes } : item)));
              const renameOverrides = (key: string) => {
                const groups = filters.groups?.map((group) => (group.variant === variant.key ? { ...group, variant: key } : group));
                onChange({
                  ...filters,
                  groups,
                  multivariate: { variants: variants.map((item, i) => (i === index ? { ...item, key } : item)), extra: filters.multivariate?.extra ?? {} },
                });
              };
              return (
                <div key={variant.uid} className="variant-row">
                  <Field label={`${label} key`} hideLabel error={first(`filters__multivariate__variants__${index}__key`)}>
                    {(control) => <Input {...control} className="mono" placeholder="variant-key" value={variant.key} onChange={(event) => renameOverrides(event.target.value)} />}
                  </Field>
                  <Field label={`${label} description`} hideLabel>
                    {(control) => (
                      <Input {...control} placeholder="Description" value={variant.name ?? ''} onChange={(event) => update({ name: event.target.value === '' && variant.name === undefined ? undefined : event.target.value })} />
                    )}
                  </Field>
                  <Field label={`${label} rollout percentage`} hideLabel error={first(`filters__multivariate__variants__${index}__rollout_percentage`)}>
                    {(control) => (
                      <div className="rollout-input">
                        <Input
                          {...control}
                          type="number"
                          min={0}
                          max={100}
                          step="any"
                          className="rollout-number"
                          value={Number.isFinite(variant.rollout_percentage) ? String(variant.rollout_percentage) : ''}
                          onChange={(event) => update({ rollout_percentage: event.target.value === '' ? Number.NaN : Number(event.target.value) })}
                        />
                        <span aria-hidden="true">%</span>
                      </div>
                    )}
                  </Field>
                  <Field label={`${label} payload`} hideLabel error={first(`filters__multivariate__variants__${index}__payload`)}>
                    {(control) => (
                      <TextArea
                        {...control}
                        className="mono payload-input"
                        rows={1}
                        placeholder='{"optional": "JSON"}'
                        value={variant.payload?.text ?? ''}
                        onChange={(event) => update({ payload: { text: event.target.value, original: variant.payload?.original } })}
                      />
                    )}
                  </Field>
                  <button
                    type="button"
                    className="icon-button"
                    aria-label={`Remove ${label}`}
                    disabled={variants.length <= 1}
                    onClick={() => setVariants(variants.filter((_, i) => i !== index))}
                  >
                    ×
                  </button>
                </div>
              );
            })}
          </div>
          <div className="row-between">
            <div className="row">
              <Button size="sm" onClick={() => setVariants([...variants, { uid: newUid('v'), key: `variant-${variants.length + 1}`, name: null, rollout_percentage: 0, extra: {} }])}>
                + Add variant
              </Button>
              <Button size="sm" variant="ghost" onClick={() => setVariants(withEvenSplit(variants))}>
                Distribute equally
              </Button>
            </div>
            <span className={sumOk ? 'muted' : 'field-error'} aria-live="polite">
              Total: {Math.round(sum * 100) / 100}% {sumOk ? '' : '(must be 100%)'}
            </span>
          </div>
          {issues('filters__multivariate').map((message) => (
            <div key={message} className="field-error" role="alert">
              {message}
            </div>
          ))}
        </div>
      ) : (
        <Field
          label="Payload (optional)"
          hint="JSON that SDKs receive with the flag when it is on, e.g. a configuration object."
          error={first('filters__payloads__true')}
        >
          {(control) => (
            <TextArea
              {...control}
              className="mono"
              rows={3}
              placeholder='{"color": "blue"}'
              value={filters.booleanPayload?.text ?? ''}
              onChange={(event) => onChange({ ...filters, booleanPayload: { text: event.target.value, original: filters.booleanPayload?.original } })}
            />
          )}
        </Field>
      )}
      {issues('filters__payloads').map((message) => (
        <div key={message} className="field-error" role="alert">
          {message}
        </div>
      ))}
    </div>
  );
}
