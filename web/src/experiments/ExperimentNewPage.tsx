/** Create an experiment: its flag (new, or an existing multivariate flag with control first), variants and split, metrics, method. */
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { errorMessage } from '../api/errors.ts';
import { useFlagChoices } from '../flags/api.ts';
import { Button } from '../ui/Button.tsx';
import { Notice } from '../ui/Feedback.tsx';
import { Field, Input, Select, TextArea } from '../ui/Field.tsx';
import { Card, PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { useToast } from '../ui/Toast.tsx';
import { useCreateExperiment } from './api.ts';
import { Calculator } from './Calculator.tsx';
import { metricOf, metricProblem, newMetricForm, type MetricForm } from './metric-form.ts';
import { MetricEditor } from './MetricEditor.tsx';
import type { ExperimentVariant } from './types.ts';
import { evenSplit, keyFromName } from './variants-form.ts';
import './experiments.css';

const METHOD_OPTIONS = [
  { value: 'bayesian', label: 'Bayesian: chance to win and credible interval' },
  { value: 'frequentist', label: 'Frequentist: p-value and confidence interval' },
];

function VariantsEditor({ variants, onChange }: { variants: ExperimentVariant[]; onChange: (variants: ExperimentVariant[]) => void }) {
  const total = variants.reduce((sum, variant) => sum + (Number.isFinite(variant.rollout_percentage) ? variant.rollout_percentage : 0), 0);
  const resplit = (next: ExperimentVariant[]) => {
    const split = evenSplit(next.length);
    onChange(next.map((variant, index) => ({ ...variant, rollout_percentage: split[index] })));
  };
  return (
    <div className="stack-sm">
      {variants.map((variant, index) => (
        <div key={index} className="variant-split-row">
          <Field label={`Variant ${index + 1} key`} hideLabel className="grow">
            {(control) => (
              <Input
                {...control}
                className="mono"
                value={variant.key}
                readOnly={index === 0}
                onChange={(event) => onChange(variants.map((v, i) => (i === index ? { ...v, key: event.target.value } : v)))}
              />
            )}
          </Field>
          <Field label={`${variant.key || `Variant ${index + 1}`} share (%)`} hideLabel>
            {(control) => (
              <Input
                {...control}
                className="split-input"
                inputMode="numeric"
                value={String(variant.rollout_percentage)}
                onChange={(event) => onChange(variants.map((v, i) => (i === index ? { ...v, rollout_percentage: Number(event.target.value) } : v)))}
              />
            )}
          </Field>
          <span className="muted">%</span>
          {index >= 2 ? (
            <Button variant="ghost" size="sm" onClick={() => resplit(variants.filter((_, i) => i !== index))}>
              Remove
            </Button>
          ) : (
            <span className="split-spacer" />
          )}
        </div>
      ))}
      <div className="row">
        <Button size="sm" disabled={variants.length >= 10} onClick={() => resplit([...variants, { key: `test-${variants.length}`, rollout_percentage: 0 }])}>
          Add a variant
        </Button>
        <Button size="sm" variant="ghost" onClick={() => resplit(variants)}>
          Split evenly
        </Button>
        <span className={total === 100 ? 'muted small' : 'field-error'} role={total === 100 ? undefined : 'alert'}>
          {total === 100 ? 'Adds up to 100 %.' : `The shares add up to ${total} %, not 100 %.`}
        </span>
      </div>
    </div>
  );
}

export function ExperimentNewPage() {
  useDocumentTitle('New experiment');
  const [, navigate] = useLocation();
  const toast = useToast();
  const create = useCreateExperiment();
  const flags = useFlagChoices();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [flagMode, setFlagMode] = useState<'new' | 'existing'>('new');
  const [flagKey, setFlagKey] = useState('');
  const [existingKey, setExistingKey] = useState('');
  const [variants, setVariants] = useState<ExperimentVariant[]>([
    { key: 'control', rollout_percentage: 50 },
    { key: 'test', rollout_percentage: 50 },
  ]);
  const [metrics, setMetrics] = useState<MetricForm[]>([newMetricForm()]);
  const [secondary, setSecondary] = useState<MetricForm[]>([]);
  const [method, setMethod] = useState('bayesian');
  const [attempted, setAttempted] = useState(false);

  // Existing flags an experiment can run on: multivariate, control first.
  const eligible = (flags.data ?? []).filter((flag) => !flag.deleted && flag.filters.multivariate?.variants?.[0]?.key === 'control');
  const chosenFlag = eligible.find((flag) => flag.key === existingKey);
  const variantCount = flagMode === 'new' ? variants.length : (chosenFlag?.filters.multivariate?.variants.length ?? 2);
  const keyToSend = flagMode === 'new' ? flagKey.trim() || keyFromName(name) : existingKey;

  // What stops sending, shown once the person has tried (and kept current as they fix it).
  const blocker =
    (!name.trim() && 'Give the experiment a name.') ||
    (!keyToSend && (flagMode === 'new' ? 'Give the flag a key.' : 'Choose a flag.')) ||
    (flagMode === 'new' && variants.reduce((sum, v) => sum + v.rollout_percentage, 0) !== 100 && 'The variant shares must add up to 100 %.') ||
    [...metrics, ...secondary].map(metricProblem).find((text) => text !== null) ||
    null;
  const problem = attempted ? blocker : null;

  function submit() {
    setAttempted(true);
    if (blocker) return;
    const body: Record<string, unknown> = {
      name: name.trim(),
      description: description.trim() || null,
      feature_flag_key: keyToSend,
      metrics: metrics.map(metricOf),
      metrics_secondary: secondary.map(metricOf),
      stats_config: { method },
      parameters: flagMode === 'new' ? { feature_flag_variants: variants.map((v) => ({ key: v.key.trim(), rollout_percentage: v.rollout_percentage })) } : {},
    };
    create.mutate(body, {
      onSuccess: (experiment) => {
        toast.show(`"${experiment.name}" is saved as a draft. Launch it when you are ready.`);
        navigate(`/experiments/${experiment.id}`);
      },
    });
  }

  return (
    <>
      <nav className="breadcrumbs" aria-label="Breadcrumbs">
        <Link href="/experiments">Experiments</Link> <span aria-hidden="true">/</span> <span>New</span>
      </nav>
      <PageHeader title="New experiment" description="Saved as a draft: nobody sees a variant until you launch it." />
      <form
        className="experiment-form stack"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <Card title="About">
          <div className="stack-sm">
            <Field label="Name">{(control) => <Input {...control} value={name} onChange={(event) => setName(event.target.value)} />}</Field>
            <Field label="Description (optional)">{(control) => <TextArea {...control} rows={2} value={description} onChange={(event) => setDescription(event.target.value)} />}</Field>
          </div>
        </Card>
        <Card title="Feature flag and variants">
          <div className="stack-sm">
            <div className="segmented" role="radiogroup" aria-label="Feature flag">
              <label className={`segment${flagMode === 'new' ? ' segment-on' : ''}`}>
                <input type="radio" name="flag-mode" checked={flagMode === 'new'} onChange={() => setFlagMode('new')} /> Create a new flag
              </label>
              <label className={`segment${flagMode === 'existing' ? ' segment-on' : ''}`}>
                <input type="radio" name="flag-mode" checked={flagMode === 'existing'} onChange={() => setFlagMode('existing')} /> Use an existing flag
              </label>
            </div>
            {flagMode === 'new' ? (
              <>
                <Field label="Flag key" hint="Your code asks for this key; the flag is created switched off and is switched on at launch.">
                  {(control) => <Input {...control} className="mono" value={flagKey} placeholder={keyFromName(name) || 'e.g. new-checkout'} onChange={(event) => setFlagKey(event.target.value)} />}
                </Field>
                <VariantsEditor variants={variants} onChange={setVariants} />
              </>
            ) : (
              <>
                <Field label="Flag" hint="Multivariate flags whose first variant is control. The flag is used as it is.">
                  {(control) => (
                    <Select
                      {...control}
                      value={existingKey}
                      onChange={(event) => setExistingKey(event.target.value)}
                      options={[{ value: '', label: eligible.length ? 'Choose a flag' : 'No multivariate flag with control first' }, ...eligible.map((flag) => ({ value: flag.key, label: flag.key }))]}
                    />
                  )}
                </Field>
                {chosenFlag ? (
                  <p className="muted small">{chosenFlag.filters.multivariate?.variants.map((v) => `${v.key} ${v.rollout_percentage}%`).join(' · ')}</p>
                ) : null}
              </>
            )}
          </div>
        </Card>
        <Card title="Metrics">
          <div className="stack">
            {metrics.map((form, index) => (
              <MetricEditor
                key={form.uid}
                title={index === 0 ? 'Primary metric' : `Primary metric ${index + 1}`}
                form={form}
                onChange={(next) => setMetrics(metrics.map((m) => (m.uid === form.uid ? next : m)))}
                onRemove={() => setMetrics(metrics.filter((m) => m.uid !== form.uid))}
              />
            ))}
            {secondary.map((form, index) => (
              <MetricEditor
                key={form.uid}
                title={`Secondary metric ${index + 1}`}
                form={form}
                onChange={(next) => setSecondary(secondary.map((m) => (m.uid === form.uid ? next : m)))}
                onRemove={() => setSecondary(secondary.filter((m) => m.uid !== form.uid))}
              />
            ))}
            <div className="row">
              <Button size="sm" onClick={() => setMetrics([...metrics, newMetricForm()])}>
                Add a primary metric
              </Button>
              <Button size="sm" variant="ghost" onClick={() => setSecondary([...secondary, newMetricForm('mean')])}>
                Add a secondary metric
              </Button>
            </div>
            <Field label="Statistics">{(control) => <Select {...control} options={METHOD_OPTIONS} value={method} onChange={(event) => setMethod(event.target.value)} />}</Field>
          </div>
        </Card>
        <Calculator variantCount={variantCount} />
        {problem ? <Notice tone="error">{problem}</Notice> : null}
        {create.isError ? <Notice tone="error">{errorMessage(create.error)}</Notice> : null}
        <div className="form-actions">
          <Button variant="ghost" onClick={() => navigate('/experiments')}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" loading={create.isPending}>
            Save as draft
          </Button>
        </div>
      </form>
    </>
  );
}
