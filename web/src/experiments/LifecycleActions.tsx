/** Launch, pause, resume, end, ship a variant, archive, reset: each confirmed with what happens to the flag. */
import { useState, type ReactNode } from 'react';
import { errorMessage } from '../api/errors.ts';
import { Button, type ButtonVariant } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { Notice } from '../ui/Feedback.tsx';
import { Checkbox, Field, Select, TextArea } from '../ui/Field.tsx';
import { useToast } from '../ui/Toast.tsx';
import { useLifecycleAction } from './api.ts';
import { experimentState, variantsOf, type LifecycleAction } from './status.ts';
import type { Experiment } from './types.ts';

const CONCLUSIONS = [
  { value: '', label: 'No conclusion' },
  { value: 'won', label: 'Won' },
  { value: 'lost', label: 'Lost' },
  { value: 'inconclusive', label: 'Inconclusive' },
  { value: 'stopped_early', label: 'Stopped early' },
  { value: 'invalid', label: 'Invalid' },
];

interface ActionSpec {
  action: LifecycleAction;
  label: string;
  variant: ButtonVariant;
  title: string;
  done: string;
}

function specsFor(experiment: Experiment): ActionSpec[] {
  const state = experimentState(experiment);
  const name = `"${experiment.name}"`;
  const specs: ActionSpec[] = [];
  if (state === 'draft') specs.push({ action: 'launch', label: 'Launch', variant: 'primary', title: `Launch ${name}?`, done: `${name} is running.` });
  if (state === 'running') specs.push({ action: 'pause', label: 'Pause', variant: 'secondary', title: `Pause ${name}?`, done: `${name} is paused: its flag is off.` });
  if (state === 'paused') specs.push({ action: 'resume', label: 'Resume', variant: 'primary', title: `Resume ${name}?`, done: `${name} is running again.` });
  if (state === 'running' || state === 'paused') specs.push({ action: 'end', label: 'End', variant: 'secondary', title: `End ${name}?`, done: `${name} has ended.` });
  if (state !== 'draft') specs.push({ action: 'ship_variant', label: 'Ship a variant', variant: state === 'complete' ? 'primary' : 'secondary', title: `Ship a variant of ${name}`, done: 'Shipped.' });
  if (state === 'complete' && !experiment.archived) specs.push({ action: 'archive', label: 'Archive', variant: 'ghost', title: `Archive ${name}?`, done: `${name} is archived.` });
  if (experiment.archived) specs.push({ action: 'unarchive', label: 'Unarchive', variant: 'ghost', title: `Unarchive ${name}?`, done: `${name} is back in the list.` });
  if (state !== 'draft') specs.push({ action: 'reset', label: 'Reset to draft', variant: 'ghost', title: `Reset ${name} to a draft?`, done: `${name} is a draft again.` });
  return specs;
}

function Explanation({ action, experiment, shipKey, everyone }: { action: LifecycleAction; experiment: Experiment; shipKey: string; everyone: boolean }): ReactNode {
  const flag = <code>{experiment.feature_flag_key}</code>;
  const split = variantsOf(experiment).map((v) => `${v.key} ${v.rollout_percentage}%`).join(', ');
  switch (action) {
    case 'launch':
      return <p>The flag {flag} is switched on and starts splitting people: {split}. Exposures and metrics count from now.</p>;
    case 'pause':
      return <p>The flag {flag} is switched off: everyone gets its off value until you resume. What was collected is kept, and the experiment keeps its dates.</p>;
    case 'resume':
      return <p>The flag {flag} is switched on again with the same split; people keep the variant they had.</p>;
    case 'end':
      return <p>The results stop at this moment. The flag {flag} is not changed: people keep getting their variants until you ship one or switch the flag off.</p>;
    case 'ship_variant':
      return (
        <p>
          The flag {flag} serves <strong>{shipKey || '…'}</strong> to 100 % of the people its conditions match{everyone ? ', and a first condition that matches everyone is added' : ''}; the other
          variants are no longer served. A running experiment ends now.
        </p>
      );
    case 'archive':
      return <p>The experiment leaves the list (the Archived filter shows it). The flag {flag} is left as it is unless you switch it off below.</p>;
    case 'unarchive':
      return <p>The experiment is listed again. Its flag is not changed.</p>;
    case 'reset':
      return <p>Back to a draft: the dates and conclusion are cleared and the exposures and results collected so far are forgotten. The flag {flag} is not changed.</p>;
  }
}

function ActionDialog({ experiment, spec, onClose }: { experiment: Experiment; spec: ActionSpec; onClose: () => void }) {
  const run = useLifecycleAction(experiment.id);
  const toast = useToast();
  const variants = variantsOf(experiment);
  const [shipKey, setShipKey] = useState(variants[1]?.key ?? variants[0]?.key ?? '');
  const [everyone, setEveryone] = useState(false);
  const [conclusion, setConclusion] = useState('');
  const [comment, setComment] = useState('');
  const [disableFlag, setDisableFlag] = useState(false);
  const concludes = spec.action === 'end' || spec.action === 'ship_variant';

  function confirm() {
    const body: Record<string, unknown> = {};
    if (concludes) {
      if (conclusion) body.conclusion = conclusion;
      if (comment.trim()) body.conclusion_comment = comment.trim();
    }
    if (spec.action === 'ship_variant') {
      body.variant_key = shipKey;
      body.release_to_everyone = everyone;
    }
    if (spec.action === 'archive') body.disable_feature_flag = disableFlag;
    run.mutate(
      { action: spec.action, body },
      {
        onSuccess: () => {
          toast.show(spec.action === 'ship_variant' ? `${shipKey} is shipped: the flag serves it to everyone it matches.` : spec.done);
          onClose();
        },
      },
    );
  }

  return (
    <Dialog
      open
      onClose={onClose}
      title={spec.title}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button variant={spec.action === 'reset' ? 'danger' : 'primary'} loading={run.isPending} onClick={confirm}>
            {spec.label}
          </Button>
        </>
      }
    >
      <div className="stack-sm">
        {spec.action === 'ship_variant' ? (
          <Field label="Variant to ship">{(control) => <Select {...control} value={shipKey} onChange={(event) => setShipKey(event.target.value)} options={variants.map((v) => ({ value: v.key, label: v.key }))} />}</Field>
        ) : null}
        <Explanation action={spec.action} experiment={experiment} shipKey={shipKey} everyone={everyone} />
        {spec.action === 'ship_variant' ? <Checkbox label="Release to everyone (add a condition matching everyone first)" checked={everyone} onChange={(event) => setEveryone(event.target.checked)} /> : null}
        {spec.action === 'archive' ? <Checkbox label="Also switch off and archive the flag" checked={disableFlag} onChange={(event) => setDisableFlag(event.target.checked)} /> : null}
        {concludes ? (
          <>
            <Field label="Conclusion">{(control) => <Select {...control} value={conclusion} onChange={(event) => setConclusion(event.target.value)} options={CONCLUSIONS} />}</Field>
            <Field label="Comment (optional)">{(control) => <TextArea {...control} rows={2} value={comment} onChange={(event) => setComment(event.target.value)} />}</Field>
          </>
        ) : null}
        {run.isError ? <Notice tone="error">Not changed: {errorMessage(run.error)}</Notice> : null}
      </div>
    </Dialog>
  );
}

export function LifecycleActions({ experiment }: { experiment: Experiment }) {
  const [open, setOpen] = useState<ActionSpec | null>(null);
  return (
    <>
      {specsFor(experiment).map((spec) => (
        <Button key={spec.action} variant={spec.variant} onClick={() => setOpen(spec)}>
          {spec.label}
        </Button>
      ))}
      {open ? <ActionDialog experiment={experiment} spec={open} onClose={() => setOpen(null)} /> : null}
    </>
  );
}
