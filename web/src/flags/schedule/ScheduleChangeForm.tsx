import { useState, type FormEvent } from 'react';
import { errorMessage } from '../../api/errors.ts';
import type { FeatureFlag } from '../../api/types.ts';
import { utcToZoned } from '../../lib/zoned-time.ts';
import { RestrictedButton } from '../../ui/Restricted.tsx';
import { Notice } from '../../ui/Feedback.tsx';
import { Field, Input, Select } from '../../ui/Field.tsx';
import { useToast } from '../../ui/Toast.tsx';
import { useCohortChoices, useFlagChoices, useGroupTypes } from '../api.ts';
import { ConditionSetEditor } from '../editor/ConditionSetEditor.tsx';
import { useCreateSchedule } from './api.ts';
import { canRepeat, INTERVAL_LABELS, newScheduleForm, scheduleBody, type Interval, type Repeat, type ScheduleForm, type ScheduleOperation } from './schedule-form.ts';

const HOUR_MS = 3_600_000;

function Segmented<Value extends string>({ label, name, value, options, onChange }: { label: string; name: string; value: Value; options: Array<{ value: Value; label: string; disabled?: boolean }>; onChange: (value: Value) => void }) {
  return (
    <fieldset className="segmented" aria-label={label}>
      <legend className="visually-hidden">{label}</legend>
      {options.map((option) => (
        <label key={option.value} className={`segment${option.value === value ? ' segment-on' : ''}${option.disabled ? ' segment-disabled' : ''}`}>
          <input type="radio" name={name} checked={option.value === value} disabled={option.disabled} onChange={() => onChange(option.value)} />
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}

/** The next whole hour on the project's wall clock: a sensible first value for "when". */
function nextHour(timeZone: string): string {
  return utcToZoned(new Date(Math.ceil((Date.now() + 1) / HOUR_MS) * HOUR_MS).toISOString(), timeZone);
}

export function ScheduleChangeForm({ flag, timeZone, refusal }: { flag: FeatureFlag; timeZone: string; refusal: string | null }) {
  const [form, setForm] = useState<ScheduleForm>(() => newScheduleForm(flag, nextHour(timeZone)));
  const [issue, setIssue] = useState<string | null>(null);
  const create = useCreateSchedule(flag.id);
  const toast = useToast();
  const cohorts = useCohortChoices();
  const flags = useFlagChoices();
  const groupTypes = useGroupTypes();
  const multivariate = (flag.filters.multivariate?.variants ?? []).length > 0;
  const set = (changes: Partial<ScheduleForm>) => {
    setIssue(null);
    setForm((current) => ({ ...current, ...changes }));
  };

  const operations: Array<{ value: ScheduleOperation; label: string }> = [
    { value: 'enable', label: 'Turn on' },
    { value: 'disable', label: 'Turn off' },
    { value: 'add_release_condition', label: 'Add a release condition' },
    ...(multivariate ? [{ value: 'update_variants' as const, label: 'Change the variant split' }] : []),
  ];
  const repeatable = canRepeat(form.operation);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const built = scheduleBody(form, flag, timeZone);
    if ('issue' in built) return setIssue(built.issue);
    create.mutate(built.body, {
      onSuccess: () => {
        toast.show('Change scheduled.');
        setForm(newScheduleForm(flag, nextHour(timeZone)));
      },
    });
  };

  return (
    <form className="stack schedule-form" onSubmit={onSubmit} noValidate>
      <Segmented
        label="Change"
        name="schedule-operation"
        value={form.operation}
        options={operations}
        onChange={(operation) => set({ operation, repeat: canRepeat(operation) ? form.repeat : 'once' })}
      />
      {form.operation === 'add_release_condition' ? (
        <ConditionSetEditor
          condition={form.condition}
          index={0}
          choices={{ cohorts: cohorts.data ?? [], flags: flags.data ?? [], groupTypes: groupTypes.data ?? [], flagId: flag.id, aggregation: flag.filters.aggregation_group_type_index ?? null }}
          variantKeys={(flag.filters.multivariate?.variants ?? []).map((variant) => variant.key)}
          onChange={(condition) => set({ condition })}
          issues={() => []}
        />
      ) : null}
      {form.operation === 'update_variants' ? (
        <div className="schedule-variants" role="group" aria-label="New variant split">
          {form.variants.map((variant, index) => (
            <Field key={variant.key} label={`${variant.key} (%)`}>
              {(control) => (
                <Input
                  {...control}
                  type="number"
                  min={0}
                  max={100}
                  value={String(variant.rollout)}
                  onChange={(event) => set({ variants: form.variants.map((item, i) => (i === index ? { ...item, rollout: Number(event.target.value) } : item)) })}
                />
              )}
            </Field>
          ))}
        </div>
      ) : null}
      <div className="form-grid">
        <Field label={form.repeat === 'once' ? 'When' : 'First run'} hint={`On the project's clock (${timeZone}).`}>
          {(control) => <Input {...control} type="datetime-local" value={form.when} onChange={(event) => set({ when: event.target.value })} />}
        </Field>
        <div className="field">
          <span className="field-label">Repeat</span>
          <Segmented<Repeat>
            label="Repeat"
            name="schedule-repeat"
            value={form.repeat}
            options={[
              { value: 'once', label: 'Once' },
              { value: 'interval', label: 'At an interval', disabled: !repeatable },
              { value: 'cron', label: 'Cron', disabled: !repeatable },
            ]}
            onChange={(repeat) => set({ repeat })}
          />
          {!repeatable ? <span className="field-hint">Adding a release condition runs once: every run would add it again.</span> : null}
        </div>
      </div>
      {form.repeat !== 'once' ? (
        <div className="form-grid">
          {form.repeat === 'interval' ? (
            <Field label="Interval" hint="Counted from the first run, in UTC.">
              {(control) => (
                <Select
                  {...control}
                  options={Object.entries(INTERVAL_LABELS).map(([value, label]) => ({ value, label }))}
                  value={form.interval}
                  onChange={(event) => set({ interval: event.target.value as Interval })}
                />
              )}
            </Field>
          ) : (
            <Field label="Cron expression" hint={`Minute hour day month weekday, on the project's clock (${timeZone}).`}>
              {(control) => <Input {...control} className="mono" value={form.cron} onChange={(event) => set({ cron: event.target.value })} placeholder="0 9 * * 1-5" />}
            </Field>
          )}
          <Field label="End date (optional)" hint="No run after it.">
            {(control) => <Input {...control} type="datetime-local" value={form.endDate} onChange={(event) => set({ endDate: event.target.value })} />}
          </Field>
        </div>
      ) : null}
      {issue ? <Notice tone="error">{issue}</Notice> : null}
      {create.isError ? <Notice tone="error">The change was not scheduled: {errorMessage(create.error)}</Notice> : null}
      <div>
        <RestrictedButton type="submit" variant="primary" loading={create.isPending} reason={refusal}>
          Schedule change
        </RestrictedButton>
      </div>
    </form>
  );
}
