/** One metric in the create form: its kind, its events (from the event definitions) with property filters, its window. */
import { useId } from 'react';
import { useDefinitionList } from '../definitions/api.ts';
import { Button } from '../ui/Button.tsx';
import { Field, Input, Select } from '../ui/Field.tsx';
import { emptySource, MATH_OPTIONS, METRIC_OPERATORS, uid, WINDOW_UNITS, type MetricForm, type SourceForm } from './metric-form.ts';
import { METRIC_TYPE_LABELS } from './metric-text.ts';
import type { MetricType } from './types.ts';

/** The project's event names for the event inputs (the first page of definitions; any name may be typed). */
export function EventNames({ id }: { id: string }) {
  const definitions = useDefinitionList({});
  return (
    <datalist id={id}>
      {(definitions.data?.results ?? []).map((definition) => (
        <option key={definition.id} value={definition.name} />
      ))}
    </datalist>
  );
}

function SourceEditor({ label, source, onChange, withMath, eventsId }: { label: string; source: SourceForm; onChange: (source: SourceForm) => void; withMath: boolean; eventsId: string }) {
  const set = (changes: Partial<SourceForm>) => onChange({ ...source, ...changes });
  return (
    <div className="metric-source">
      <div className="metric-source-row">
        <Field label={label} className="grow">
          {(control) => <Input {...control} list={eventsId} value={source.event} placeholder="Event name, e.g. purchase" onChange={(event) => set({ event: event.target.value })} />}
        </Field>
        {withMath ? (
          <Field label="Per user">
            {(control) => <Select {...control} options={MATH_OPTIONS} value={source.math} onChange={(event) => set({ math: event.target.value as SourceForm['math'] })} />}
          </Field>
        ) : null}
        {withMath && source.math !== 'total' ? (
          <Field label="Property">
            {(control) => <Input {...control} value={source.property} placeholder="e.g. amount" onChange={(event) => set({ property: event.target.value })} />}
          </Field>
        ) : null}
      </div>
      {source.filters.map((filter, index) => {
        const needsValue = METRIC_OPERATORS.find((op) => op.value === filter.operator)?.needsValue ?? true;
        const change = (changes: Partial<typeof filter>) => set({ filters: source.filters.map((f, i) => (i === index ? { ...f, ...changes } : f)) });
        return (
          <div key={filter.uid} className="metric-filter-row">
            <span className="muted small">where</span>
            <Field label="Property" hideLabel>
              {(control) => <Input {...control} value={filter.key} placeholder="property" onChange={(event) => change({ key: event.target.value })} />}
            </Field>
            <Field label="Operator" hideLabel>
              {(control) => <Select {...control} options={METRIC_OPERATORS} value={filter.operator} onChange={(event) => change({ operator: event.target.value })} />}
            </Field>
            {needsValue ? (
              <Field label="Value" hideLabel>
                {(control) => <Input {...control} value={filter.value} placeholder="value" onChange={(event) => change({ value: event.target.value })} />}
              </Field>
            ) : null}
            <Button variant="ghost" size="sm" aria-label="Remove this filter" onClick={() => set({ filters: source.filters.filter((_, i) => i !== index) })}>
              Remove
            </Button>
          </div>
        );
      })}
      <Button variant="ghost" size="sm" onClick={() => set({ filters: [...source.filters, { uid: uid(), key: '', operator: 'exact', value: '' }] })}>
        Add a property filter
      </Button>
    </div>
  );
}

const TYPE_OPTIONS = (Object.keys(METRIC_TYPE_LABELS) as MetricType[]).map((value) => ({ value, label: METRIC_TYPE_LABELS[value] }));
const UNIT_OPTIONS = WINDOW_UNITS.map((unit) => ({ value: unit, label: `${unit}s` }));

export function MetricEditor({ form, onChange, onRemove, title }: { form: MetricForm; onChange: (form: MetricForm) => void; onRemove: () => void; title: string }) {
  const eventsId = useId();
  const set = (changes: Partial<MetricForm>) => onChange({ ...form, ...changes });
  return (
    <fieldset className="metric-editor">
      <legend>{title}</legend>
      <EventNames id={eventsId} />
      <div className="metric-source-row">
        <Field label="Kind">
          {(control) => <Select {...control} options={TYPE_OPTIONS} value={form.type} onChange={(event) => set({ type: event.target.value as MetricType })} />}
        </Field>
        <Field label="Name (optional)" className="grow">
          {(control) => <Input {...control} value={form.name} onChange={(event) => set({ name: event.target.value })} />}
        </Field>
      </div>
      {form.type === 'mean' ? <SourceEditor label="Event" source={form.source} withMath eventsId={eventsId} onChange={(source) => set({ source })} /> : null}
      {form.type === 'funnel' ? (
        <>
          <p className="muted small">Exposure to the flag is the first step; a user converts by doing these events after it, in order.</p>
          {form.steps.map((step, index) => (
            <div key={index} className="stack-sm">
              <SourceEditor label={`Step ${index + 1}`} source={step} withMath={false} eventsId={eventsId} onChange={(next) => set({ steps: form.steps.map((s, i) => (i === index ? next : s)) })} />
              {form.steps.length > 1 ? (
                <Button variant="ghost" size="sm" onClick={() => set({ steps: form.steps.filter((_, i) => i !== index) })}>
                  Remove step {index + 1}
                </Button>
              ) : null}
            </div>
          ))}
          <Button size="sm" onClick={() => set({ steps: [...form.steps, emptySource()] })}>
            Add a step
          </Button>
        </>
      ) : null}
      {form.type === 'ratio' ? (
        <>
          <SourceEditor label="Numerator event" source={form.numerator} withMath eventsId={eventsId} onChange={(numerator) => set({ numerator })} />
          <SourceEditor label="Denominator event" source={form.denominator} withMath eventsId={eventsId} onChange={(denominator) => set({ denominator })} />
        </>
      ) : null}
      <div className="metric-source-row">
        <Field label="Window after exposure" hint="Empty: until the experiment ends.">
          {(control) => <Input {...control} inputMode="numeric" value={form.window} onChange={(event) => set({ window: event.target.value })} />}
        </Field>
        <Field label="Unit">
          {(control) => <Select {...control} options={UNIT_OPTIONS} value={form.windowUnit} onChange={(event) => set({ windowUnit: event.target.value })} />}
        </Field>
      </div>
      <div className="form-actions">
        <Button variant="ghost" onClick={onRemove}>
          Remove this metric
        </Button>
      </div>
    </fieldset>
  );
}
