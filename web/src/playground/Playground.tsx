import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../api/client.ts';
import type { PlaygroundAnswer, PlaygroundFlag, PlaygroundRequest } from '../api/types.ts';
import { reasonText } from '../lib/reasons.ts';
import { useProjectPath } from '../shell/session.ts';
import { Badge } from '../ui/Badge.tsx';
import { Button } from '../ui/Button.tsx';
import { ErrorNotice, Notice } from '../ui/Feedback.tsx';
import { Field, Input, TextArea } from '../ui/Field.tsx';
import { Table, type Column } from '../ui/Table.tsx';
import { readJsonObject } from './json-object.ts';
import './playground.css';

const EXAMPLE_PERSON = '{\n  "email": "ada@example.com",\n  "plan": "pro"\n}';

function valueBadge(value: boolean | string) {
  if (typeof value === 'string') return <Badge tone="primary">{`variant “${value}”`}</Badge>;
  return <Badge tone={value ? 'success' : 'neutral'}>{String(value)}</Badge>;
}

const COLUMNS: Column<PlaygroundFlag>[] = [
  { key: 'key', header: 'Flag', render: (flag) => <Link href={`/feature_flags/${flag.id}`} className="mono">{flag.key}</Link> },
  { key: 'value', header: 'Value', render: (flag) => valueBadge(flag.value) },
  { key: 'reason', header: 'Why', render: (flag) => (flag.active ? reasonText(flag.reason, flag.condition_index) : 'The flag is disabled.') },
  {
    key: 'payload',
    header: 'Payload',
    wideOnly: true,
    render: (flag) => (flag.payload === null || flag.payload === undefined ? <span className="muted">none</span> : <code className="playground-payload">{JSON.stringify(flag.payload)}</code>),
  },
];

/**
 * Evaluates flags for a distinct id and made-up person and group properties (nothing stored is read
 * or written): every flag, or only `flagKey` on a flag's page.
 */
export function Playground({ flagKey }: { flagKey?: string }) {
  const path = useProjectPath();
  const [distinctId, setDistinctId] = useState('user-42');
  const [personText, setPersonText] = useState(EXAMPLE_PERSON);
  const [groupsText, setGroupsText] = useState('');
  const [groupPropertiesText, setGroupPropertiesText] = useState('');
  const person = readJsonObject(personText);
  const groups = readJsonObject(groupsText);
  const groupProperties = readJsonObject(groupPropertiesText);
  const evaluate = useMutation({
    mutationFn: (body: PlaygroundRequest) => api.post<PlaygroundAnswer>(path('feature_flags/playground/'), body),
  });
  const problems = [person, groups, groupProperties].some((read) => 'problem' in read);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!('value' in person) || !('value' in groups) || !('value' in groupProperties)) return;
    evaluate.mutate({
      distinct_id: distinctId.trim(),
      person_properties: person.value,
      groups: groups.value as Record<string, string>,
      group_properties: groupProperties.value as Record<string, Record<string, unknown>>,
      ...(flagKey ? { flag_keys: [flagKey] } : {}),
    });
  };
  const answer = evaluate.data;
  return (
    <div className="stack">
      <form className="playground-form" onSubmit={onSubmit} aria-label="Playground">
        <Field label="Distinct id" hint="Decides the rollout percentage and the variant.">
          {(control) => <Input {...control} value={distinctId} onChange={(event) => setDistinctId(event.target.value)} />}
        </Field>
        <Field label="Person properties (JSON)" error={'problem' in person ? person.problem : null} hint="Made up: the stored person is not read.">
          {(control) => <TextArea {...control} className="mono" rows={5} value={personText} onChange={(event) => setPersonText(event.target.value)} />}
        </Field>
        <Field label="Groups (JSON)" error={'problem' in groups ? groups.problem : null} hint='Group type → key, e.g. {"company": "acme"}.'>
          {(control) => <TextArea {...control} className="mono" rows={2} value={groupsText} onChange={(event) => setGroupsText(event.target.value)} />}
        </Field>
        <Field
          label="Group properties (JSON)"
          error={'problem' in groupProperties ? groupProperties.problem : null}
          hint='Group type → properties, e.g. {"company": {"size": "large"}}.'
        >
          {(control) => <TextArea {...control} className="mono" rows={2} value={groupPropertiesText} onChange={(event) => setGroupPropertiesText(event.target.value)} />}
        </Field>
        <div className="row">
          <Button type="submit" variant="primary" loading={evaluate.isPending} disabled={distinctId.trim() === '' || problems}>
            {flagKey ? 'Evaluate this flag' : 'Evaluate every flag'}
          </Button>
        </div>
      </form>
      {evaluate.isError ? <ErrorNotice error={evaluate.error} title="Not evaluated" /> : null}
      {answer ? (
        answer.flags.length === 0 ? (
          <Notice>There are no flags to evaluate yet.</Notice>
        ) : (
          <div aria-live="polite">
            <Table caption="How each flag evaluates" columns={COLUMNS} rows={answer.flags} rowKey={(flag) => flag.id} />
          </div>
        )
      ) : null}
    </div>
  );
}
