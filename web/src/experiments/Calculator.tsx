/** Sample size and running time for a minimum detectable effect (the service's own formulas, run here). */
import { useState } from 'react';
import { estimatedRunningDays, sampleSizePerVariant } from '../../../src/experiments/stats/sample-size.ts';
import { formatCount } from '../lib/format.ts';
import { Field, Input, Select } from '../ui/Field.tsx';
import { Card } from '../ui/Page.tsx';

const KIND_OPTIONS = [
  { value: 'funnel', label: 'Conversion rate' },
  { value: 'mean', label: 'Mean per user' },
];

function number(text: string): number {
  return text.trim() === '' ? NaN : Number(text);
}

export function Calculator({ variantCount }: { variantCount: number }) {
  const [kind, setKind] = useState<'funnel' | 'mean'>('funnel');
  const [baseline, setBaseline] = useState('10');
  const [deviation, setDeviation] = useState('');
  const [effect, setEffect] = useState('10');
  const [perDay, setPerDay] = useState('');

  let answer: { size: number; days: number | null } | null = null;
  let problem: string | null = null;
  try {
    const input = {
      metric: kind,
      baseline_value: kind === 'funnel' ? number(baseline) / 100 : number(baseline),
      baseline_variance: kind === 'mean' ? number(deviation) ** 2 : undefined,
      minimum_detectable_effect: number(effect) / 100,
    };
    const size = sampleSizePerVariant(input);
    const daily = number(perDay);
    answer = { size, days: daily > 0 ? estimatedRunningDays({ ...input, variant_count: Math.max(2, variantCount), exposures_per_day: daily }) : null };
  } catch (error) {
    problem = (error as Error).message;
  }

  return (
    <Card title="How many users will it take?">
      <div className="calculator">
        <Field label="Metric">
          {(control) => <Select {...control} options={KIND_OPTIONS} value={kind} onChange={(event) => setKind(event.target.value as 'funnel' | 'mean')} />}
        </Field>
        <Field label={kind === 'funnel' ? 'Baseline conversion (%)' : 'Baseline mean'}>
          {(control) => <Input {...control} inputMode="decimal" value={baseline} onChange={(event) => setBaseline(event.target.value)} />}
        </Field>
        {kind === 'mean' ? (
          <Field label="Standard deviation">
            {(control) => <Input {...control} inputMode="decimal" value={deviation} onChange={(event) => setDeviation(event.target.value)} />}
          </Field>
        ) : null}
        <Field label="Smallest change worth detecting (%)" hint="Relative: 10 means 10 % better than the baseline.">
          {(control) => (
            <Input {...control} inputMode="decimal" value={effect} onChange={(event) => setEffect(event.target.value)} />
          )}
        </Field>
        <Field label="Users exposed per day (optional)">
          {(control) => <Input {...control} inputMode="numeric" value={perDay} onChange={(event) => setPerDay(event.target.value)} />}
        </Field>
      </div>
      <p className="calculator-answer" role="status">
        {answer ? (
          <>
            <strong>{formatCount(answer.size)}</strong> users per variant ({formatCount(answer.size * Math.max(2, variantCount))} in all)
            {answer.days !== null ? (
              <>
                , about <strong>{formatCount(answer.days)}</strong> day{answer.days === 1 ? '' : 's'}
              </>
            ) : null}
            <span className="muted small"> · two-sided test at 5 % with 80 % power</span>
          </>
        ) : (
          <span className="muted">{problem ?? ''}</span>
        )}
      </p>
    </Card>
  );
}
