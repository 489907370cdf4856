import { lazy, Suspense, useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, withQuery } from '../api/client.ts';
import { errorMessage, fieldError } from '../api/errors.ts';
import type { Member, Paginated } from '../api/types.ts';
import { PagedActivity } from '../activity/PagedActivity.tsx';
import { displayName, useMe, useProject, useProjectPath } from '../shell/session.ts';
import { formatCount, formatDateTime, formatRelative } from '../lib/format.ts';
import { useUrlParams } from '../lib/url-state.ts';
import { Badge } from '../ui/Badge.tsx';
import { Button } from '../ui/Button.tsx';
import { ChipsInput } from '../ui/ChipsInput.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Checkbox, Field, Select, TextArea } from '../ui/Field.tsx';
import { Card, PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { Table } from '../ui/Table.tsx';
import { TabPanel, Tabs } from '../ui/Tabs.tsx';
import { useToast } from '../ui/Toast.tsx';
import { definitionKeys, useDefinition, useDefinitionActivity, useEventProperties, useEventSchemas, usePropertyGroups, useUpdateDefinition, useVolume } from './api.ts';
import { CodeTabs } from './CodeTabs.tsx';
import { NewPropertyGroup } from './NewPropertyGroup.tsx';
import { DefinitionBadges } from './DefinitionsListPage.tsx';
import type { EventDefinition, PropertyDefinition } from './types.ts';
import './definitions.css';

const TrendChart = lazy(() => import('../charts/TrendChart.tsx'));

const TABS = [
  { id: 'overview', label: 'Overview' },
  { id: 'schema', label: 'Schema' },
  { id: 'code', label: 'Code' },
  { id: 'history', label: 'History' },
];

function useMembers() {
  const me = useMe();
  const org = me.organization;
  return useQuery({
    queryKey: ['members', org?.id],
    queryFn: ({ signal }) => api.get<Paginated<Member>>(withQuery(`/api/organizations/${org!.id}/members/`, { limit: 1000 }), signal),
    enabled: Boolean(org),
    staleTime: 60_000,
  });
}

function DefinitionEditor({ definition }: { definition: EventDefinition }) {
  const update = useUpdateDefinition(definition.id);
  const members = useMembers();
  const toast = useToast();
  const [description, setDescription] = useState(definition.description);
  const [owner, setOwner] = useState(definition.owner?.id ?? null);
  const [tags, setTags] = useState(definition.tags);
  const [verified, setVerified] = useState(definition.verified);
  const [hidden, setHidden] = useState(definition.hidden);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ description, owner, tags, verified, hidden }, { onSuccess: (saved) => toast.show(`Saved "${saved.name}".`) });
  };
  const ownerOptions = [{ value: '', label: 'No owner' }, ...(members.data?.results ?? []).map((member) => ({ value: String(member.user.id), label: displayName(member.user) }))];
  if (owner !== null && !ownerOptions.some((option) => option.value === String(owner))) ownerOptions.push({ value: String(owner), label: displayName(definition.owner) });
  const unplaced = update.error && !['description', 'owner', 'tags', 'verified', 'hidden'].some((field) => fieldError(update.error, field));
  return (
    <form className="stack" onSubmit={onSubmit} noValidate>
      {unplaced ? <Notice tone="error">Not saved: {errorMessage(update.error)}</Notice> : null}
      <Field label="Description" error={fieldError(update.error, 'description')}>
        {(control) => <TextArea {...control} rows={3} value={description} onChange={(event) => setDescription(event.target.value)} placeholder="What this event means and when it is sent" />}
      </Field>
      <div className="form-grid">
        <Field label="Owner" error={fieldError(update.error, 'owner')}>
          {(control) => <Select {...control} options={ownerOptions} value={owner === null ? '' : String(owner)} onChange={(event) => setOwner(event.target.value === '' ? null : Number(event.target.value))} />}
        </Field>
        <Field label="Tags" hint="Press Enter after each tag." error={fieldError(update.error, 'tags', true)}>
          {(control) => <ChipsInput {...control} values={tags} placeholder="Add a tag" onChange={setTags} />}
        </Field>
      </div>
      <Checkbox
        label="Verified"
        hint="Your team vouches for this event: it is the one to use. A verified event is never hidden."
        checked={verified}
        onChange={(event) => {
          setVerified(event.target.checked);
          if (event.target.checked) setHidden(false);
        }}
      />
      <Checkbox
        label="Hidden"
        hint="Left out of pickers and lists that exclude hidden events."
        checked={hidden}
        onChange={(event) => {
          setHidden(event.target.checked);
          if (event.target.checked) setVerified(false);
        }}
      />
      <div>
        <Button type="submit" variant="primary" loading={update.isPending}>
          Save
        </Button>
      </div>
    </form>
  );
}

function VolumeCard({ definition }: { definition: EventDefinition }) {
  const volume = useVolume(definition.id);
  const lines = useMemo(() => (volume.data ? [{ label: definition.name, values: volume.data.counts }] : []), [volume.data, definition.name]);
  return (
    <Card title="Volume" actions={volume.data ? <span className="muted small">{formatCount(volume.data.total)} in 30 days</span> : null}>
      {volume.isPending ? (
        <Spinner label="Counting…" />
      ) : volume.isError ? (
        <ErrorNotice error={volume.error} onRetry={() => void volume.refetch()} />
      ) : volume.data.total === 0 ? (
        <EmptyState title="None in the last 30 days">The chart fills in as the event arrives.</EmptyState>
      ) : (
        <Suspense fallback={<Spinner label="Drawing the chart…" />}>
          <TrendChart days={volume.data.days} lines={lines} title={`${definition.name} per day, last 30 days`} />
        </Suspense>
      )}
    </Card>
  );
}

function PropertiesCard({ definition }: { definition: EventDefinition }) {
  const properties = useEventProperties(definition.name);
  return (
    <Card title="Properties seen with this event">
      {properties.isPending ? (
        <Spinner label="Loading properties…" />
      ) : properties.isError ? (
        <ErrorNotice error={properties.error} onRetry={() => void properties.refetch()} />
      ) : (
        <Table<PropertyDefinition>
          caption="Properties"
          rows={properties.data.results}
          rowKey={(property) => property.id}
          empty="No properties recorded with this event yet."
          columns={[
            { key: 'name', header: 'Property', render: (property) => <span className="mono">{property.name}</span> },
            { key: 'type', header: 'Type', render: (property) => property.property_type ?? '—' },
            { key: 'description', header: 'Description', wideOnly: true, render: (property) => property.description || <span className="muted">—</span> },
            { key: 'state', header: 'State', wideOnly: true, render: (property) => (property.verified ? <Badge tone="success">Verified</Badge> : property.hidden ? <Badge tone="warning">Hidden</Badge> : null) },
          ]}
        />
      )}
    </Card>
  );
}

/** Property groups attached to the event (its schema): attach an existing group, or detach one. */
function SchemaPanel({ definition }: { definition: EventDefinition }) {
  const project = useProject();
  const path = useProjectPath();
  const client = useQueryClient();
  const toast = useToast();
  const schemas = useEventSchemas(definition.id);
  const groups = usePropertyGroups();
  const [chosen, setChosen] = useState('');
  const refresh = () => {
    void client.invalidateQueries({ queryKey: definitionKeys.one(project.id, definition.id) });
    void client.invalidateQueries({ queryKey: ['schema-property-groups', project.id] });
    void client.invalidateQueries({ queryKey: [...definitionKeys.all(project.id), 'code'] });
  };
  const attach = useMutation({
    mutationFn: (groupId: string) => api.post(path('event_schemas/'), { event_definition: definition.id, property_group_id: groupId }),
    onSuccess: () => {
      setChosen('');
      refresh();
      toast.show('Property group attached.');
    },
  });
  const detach = useMutation({
    mutationFn: (schemaId: string) => api.delete(path(`event_schemas/${schemaId}/`)),
    onSuccess: () => {
      refresh();
      toast.show('Property group detached.');
    },
    onError: (error) => toast.show(`Not detached: ${errorMessage(error)}`, 'error'),
  });
  if (schemas.isPending) return <Spinner label="Loading the schema…" />;
  if (schemas.isError) return <ErrorNotice error={schemas.error} onRetry={() => void schemas.refetch()} />;
  const attached = new Set(schemas.data.results.map((schema) => schema.property_group.id));
  const available = (groups.data?.results ?? []).filter((group) => !attached.has(group.id));
  return (
    <div className="stack">
      <p className="muted">
        Property groups describe the properties this event carries and their types; the generated code types <code>capture()</code> from them.
      </p>
      {schemas.data.results.length === 0 ? <EmptyState title="No property groups attached">Without them, the generated code uses the properties ingestion saw on the event.</EmptyState> : null}
      {schemas.data.results.map((schema) => (
        <Card
          key={schema.id}
          title={schema.property_group.name}
          actions={
            <Button size="sm" variant="ghost" loading={detach.isPending && detach.variables === schema.id} onClick={() => detach.mutate(schema.id)}>
              Detach
            </Button>
          }
        >
          {schema.property_group.description ? <p className="muted">{schema.property_group.description}</p> : null}
          <Table
            caption={`Properties of ${schema.property_group.name}`}
            rows={schema.property_group.properties}
            rowKey={(property) => property.id}
            empty="This group has no properties."
            columns={[
              { key: 'name', header: 'Property', render: (property) => <span className="mono">{property.name}</span> },
              { key: 'type', header: 'Type', render: (property) => property.property_type },
              { key: 'required', header: 'Required', render: (property) => (property.is_required ? 'Required' : 'Optional') },
              { key: 'description', header: 'Description', wideOnly: true, render: (property) => property.description || <span className="muted">—</span> },
            ]}
          />
        </Card>
      ))}
      <div className="filter-bar">
        <Field label="Attach a property group" error={attach.isError ? errorMessage(attach.error) : null}>
          {(control) => (
            <Select
              {...control}
              options={[{ value: '', label: available.length ? 'Choose a group' : 'No other groups in this project' }, ...available.map((group) => ({ value: group.id, label: `${group.name} (${group.properties.length} properties)` }))]}
              value={chosen}
              onChange={(event) => setChosen(event.target.value)}
            />
          )}
        </Field>
        <Button disabled={!chosen} loading={attach.isPending} onClick={() => attach.mutate(chosen)}>
          Attach
        </Button>
        <NewPropertyGroup onCreated={(group) => attach.mutate(group.id)} />
      </div>
    </div>
  );
}

function DefinitionHistory({ definition }: { definition: EventDefinition }) {
  const [page, setPage] = useState(1);
  return <PagedActivity activity={useDefinitionActivity(definition.id, page)} page={page} onPage={setPage} />;
}

export default function DefinitionPage({ definitionId }: { definitionId: string }) {
  const definition = useDefinition(definitionId);
  const [params, setParams] = useUrlParams();
  const tab = TABS.some((item) => item.id === params.get('tab')) ? params.get('tab')! : 'overview';
  useDocumentTitle(definition.data?.name ?? 'Event definition');
  if (definition.isPending) return <Spinner label="Loading the event…" />;
  if (definition.isError) return <ErrorNotice error={definition.error} onRetry={() => void definition.refetch()} />;
  const data = definition.data;
  return (
    <>
      <nav className="breadcrumbs" aria-label="Breadcrumbs">
        <Link href="/data-management/events">Event definitions</Link> <span aria-hidden="true">/</span> <span className="mono">{data.name}</span>
      </nav>
      <PageHeader
        title={<span className="mono">{data.name}</span>}
        description={data.description || undefined}
        meta={
          <>
            <DefinitionBadges definition={data} />
            <span className="muted small">
              last seen {formatRelative(data.last_seen_at)} · owner {data.owner ? displayName(data.owner) : 'none'}
              {data.verified_by ? ` · verified by ${displayName(data.verified_by)} on ${formatDateTime(data.verified_at)}` : ''}
            </span>
          </>
        }
      />
      <Tabs tabs={TABS} selected={tab} onSelect={(id) => setParams({ tab: id === 'overview' ? null : id })} label="Event sections" idPrefix="definition" />
      <TabPanel idPrefix="definition" id={tab}>
        {tab === 'overview' ? (
          <div className="stack">
            <Card title="About this event">
              <DefinitionEditor key={data.updated_at} definition={data} />
            </Card>
            <VolumeCard definition={data} />
            <PropertiesCard definition={data} />
          </div>
        ) : null}
        {tab === 'schema' ? <SchemaPanel definition={data} /> : null}
        {tab === 'code' ? <CodeTabs /> : null}
        {tab === 'history' ? <DefinitionHistory definition={data} /> : null}
      </TabPanel>
    </>
  );
}
