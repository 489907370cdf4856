import './early-access.css';
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../api/client.ts';
import { errorMessage } from '../api/errors.ts';
import { useProject, useProjectPath } from '../shell/session.ts';
import { Badge } from '../ui/Badge.tsx';
import { Button } from '../ui/Button.tsx';
import { CopyField } from '../ui/CopyField.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Field, Input, Select } from '../ui/Field.tsx';
import { Card, PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { Table, type Column } from '../ui/Table.tsx';
import { useToast } from '../ui/Toast.tsx';
import { ENROLLING, STAGE_LABELS, STAGES, useEnrolled, useFeatures, useProjectToken, type EarlyAccessFeature } from './api.ts';

const stageOptions = STAGES.map((stage) => ({ value: stage, label: STAGE_LABELS[stage] ?? stage }));

function snippet(token: string, flagKey: string): string {
  return [
    `posthog.init('${token}', { api_host: '${window.location.origin}' })`,
    '',
    '// List the features in beta (pass stages to list others)',
    "posthog.getEarlyAccessFeatures((features) => render(features), true, ['beta'])",
    '',
    '// Opt the current person in (false opts out)',
    `posthog.updateEarlyAccessFeatureEnrollment('${flagKey}', true)`,
  ].join('\n');
}

function StageSelect({ feature }: { feature: EarlyAccessFeature }) {
  const path = useProjectPath();
  const client = useQueryClient();
  const toast = useToast();
  const change = useMutation({
    mutationFn: (stage: string) => api.patch(path(`early_access_feature/${feature.id}/`), { stage }),
    onSuccess: () => {
      toast.show('Stage changed.');
      return client.invalidateQueries({ queryKey: ['early-access'] });
    },
    onError: (error) => toast.show(errorMessage(error)),
  });
  return (
    <Select
      aria-label={`Stage of ${feature.name}`}
      options={stageOptions}
      value={feature.stage}
      disabled={change.isPending}
      onChange={(event) => change.mutate(event.currentTarget.value)}
    />
  );
}

function Enrolled({ feature }: { feature: EarlyAccessFeature }) {
  const enrolled = useEnrolled(feature.id);
  if (enrolled.isPending) return <Spinner />;
  if (enrolled.isError) return <ErrorNotice error={enrolled.error} onRetry={() => enrolled.refetch()} />;
  if (enrolled.data.results.length === 0) return <p className="muted">Nobody has opted in yet.</p>;
  return (
    <ul className="early-access-persons">
      {enrolled.data.results.map((person) => (
        <li key={person.id}>
          <Link href={`/persons/${person.id}`}>{person.distinct_id ?? person.id}</Link>
        </li>
      ))}
    </ul>
  );
}

function NewFeature() {
  const path = useProjectPath();
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [stage, setStage] = useState('beta');
  const create = useMutation({
    mutationFn: () => api.post(path('early_access_feature/'), { name, stage }),
    onSuccess: () => {
      setName('');
      return client.invalidateQueries({ queryKey: ['early-access'] });
    },
  });
  return (
    <Card title="New feature" className="early-access-card">
      <form
        className="early-access-form"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Field label="Name" error={create.isError ? errorMessage(create.error) : undefined}>
          {(control) => <Input {...control} value={name} maxLength={200} required onInput={(event) => setName(event.currentTarget.value)} />}
        </Field>
        <Field label="Stage">{(control) => <Select {...control} options={stageOptions} value={stage} onChange={(event) => setStage(event.currentTarget.value)} />}</Field>
        <Button type="submit" variant="primary" loading={create.isPending} disabled={name.trim() === ''}>
          Create
        </Button>
      </form>
      <p className="muted small">A flag is created with the feature (key from its name, served to nobody but those who opt in).</p>
    </Card>
  );
}

export function EarlyAccessPage() {
  useDocumentTitle('Early access');
  const features = useFeatures();
  const token = useProjectToken();
  const project = useProject();
  const [selected, setSelected] = useState<string | null>(null);
  const columns: Column<EarlyAccessFeature>[] = [
    {
      key: 'name',
      header: 'Feature',
      render: (feature) => (
        <div className="list-cell">
          <button type="button" className="early-access-name list-title" onClick={() => setSelected(feature.id)}>
            {feature.name}
          </button>
          {feature.description ? <div className="muted small">{feature.description}</div> : null}
        </div>
      ),
    },
    { key: 'stage', header: 'Stage', render: (feature) => <StageSelect feature={feature} /> },
    {
      key: 'serving',
      header: 'Opt-ins served',
      wideOnly: true,
      render: (feature) => (ENROLLING.has(feature.stage) ? <Badge tone="success">Yes</Badge> : <Badge tone="neutral">No</Badge>),
    },
    {
      key: 'flag',
      header: 'Flag',
      render: (feature) => (feature.feature_flag ? <Link href={`/feature_flags/${feature.feature_flag.id}`}>{feature.feature_flag.key}</Link> : '—'),
    },
  ];
  const rows = features.data?.results ?? [];
  const current = rows.find((feature) => feature.id === selected) ?? null;
  return (
    <>
      <PageHeader title="Early access" description="Features people opt into from your site with posthog-js. Alpha, beta and general availability serve the flag to whoever opted in." />
      <NewFeature />
      {features.isPending ? (
        <Spinner />
      ) : features.isError ? (
        <ErrorNotice error={features.error} onRetry={() => features.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title="No early access features yet">Create one above; posthog-js lists those in beta.</EmptyState>
      ) : (
        <div className="early-access-card"><Table caption="Early access features" columns={columns} rows={rows} rowKey={(feature) => feature.id} /></div>
      )}
      {current ? (
        <Card title={`${current.name}: opted in`} className="early-access-card">
          <Enrolled feature={current} />
          {current.feature_flag && token.data ? (
            <CopyField label="posthog-js" multiline value={snippet(token.data.api_token, current.feature_flag.key)} hint="Opting in sets a person property; the flag follows." />
          ) : null}
        </Card>
      ) : rows.length > 0 ? (
        <Notice>Choose a feature to see who opted in and the posthog-js snippet for project {project.name}.</Notice>
      ) : null}
    </>
  );
}
