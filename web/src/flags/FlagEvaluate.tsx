import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, withQuery } from '../api/client.ts';
import type { FeatureFlag, Paginated, Person } from '../api/types.ts';
import { useProject, useProjectPath } from '../shell/session.ts';
import { Badge } from '../ui/Badge.tsx';
import { Button } from '../ui/Button.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Field, Input } from '../ui/Field.tsx';
import { Card } from '../ui/Page.tsx';
import { useEvaluationReasons } from './api.ts';
import { reasonText } from '../lib/reasons.ts';

/** "Why does this person get this value?": the engine's reason for one distinct id. */
export function FlagEvaluate({ flag }: { flag: FeatureFlag }) {
  const project = useProject();
  const path = useProjectPath();
  const [draft, setDraft] = useState('');
  const [distinctId, setDistinctId] = useState('');
  const reasons = useEvaluationReasons(distinctId);
  const person = useQuery({
    queryKey: ['person-by-distinct-id', project.id, distinctId],
    queryFn: ({ signal }) => api.get<Paginated<Person>>(withQuery(path('persons/'), { distinct_id: distinctId }), signal),
    enabled: distinctId !== '',
    select: (page) => page.results[0] ?? null,
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setDistinctId(draft.trim());
  };
  const result = reasons.data?.[flag.key];
  return (
    <Card title="Why does this person get this value?">
      <form className="row evaluate-form" onSubmit={onSubmit}>
        <Field label="Distinct id" hideLabel className="grow">
          {(control) => <Input {...control} placeholder="A distinct id, e.g. user-42" value={draft} onChange={(event) => setDraft(event.target.value)} />}
        </Field>
        <Button type="submit" variant="primary" disabled={draft.trim() === ''}>
          Evaluate
        </Button>
      </form>
      {distinctId === '' ? (
        <p className="muted">Type the distinct id your SDK sends for a person to see the value this flag gives them, and why.</p>
      ) : reasons.isPending ? (
        <Spinner label="Evaluating…" />
      ) : reasons.isError ? (
        <ErrorNotice error={reasons.error} onRetry={() => void reasons.refetch()} />
      ) : !result ? (
        <Notice tone="warning">The flag was not evaluated for this person (it may be deleted or owned by a survey).</Notice>
      ) : (
        <div className="evaluation-result" aria-live="polite">
          <div className="row">
            <span>
              <strong className="mono">{distinctId}</strong> gets
            </span>
            <Badge tone={result.value === false ? 'neutral' : 'success'}>{typeof result.value === 'string' ? `variant “${result.value}”` : String(result.value)}</Badge>
          </div>
          <p>{reasonText(result.evaluation.reason, result.evaluation.condition_index)}</p>
          {person.data ? (
            <p className="muted small">
              Evaluated with the stored properties of <Link href={`/persons/${person.data.uuid}`}>{person.data.name}</Link>.
            </p>
          ) : person.data === null ? (
            <p className="muted small">No person with this distinct id is stored yet: only properties-free conditions and the rollout hash apply.</p>
          ) : null}
        </div>
      )}
    </Card>
  );
}
