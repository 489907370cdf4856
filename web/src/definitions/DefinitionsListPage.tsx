import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { useDebounced } from '../lib/debounce.ts';
import { formatRelative } from '../lib/format.ts';
import { useUrlParams } from '../lib/url-state.ts';
import { Badge, Tag } from '../ui/Badge.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { ErrorNotice, Spinner } from '../ui/Feedback.tsx';
import { Field, Input, Select } from '../ui/Field.tsx';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { Pagination } from '../ui/Pagination.tsx';
import { Table, type Column } from '../ui/Table.tsx';
import { DEFINITION_PAGE_SIZE, useDefinitionList, type DefinitionListParams } from './api.ts';
import { CodeTabs } from './CodeTabs.tsx';
import type { EventDefinition } from './types.ts';
import './definitions.css';

const VERIFIED_OPTIONS = [
  { value: '', label: 'Verified or not' },
  { value: 'true', label: 'Verified' },
  { value: 'false', label: 'Not verified' },
];
const HIDDEN_OPTIONS = [
  { value: '', label: 'Hidden included' },
  { value: 'true', label: 'Hidden left out' },
];
const FILTER_KEYS = ['search', 'verified', 'exclude_hidden', 'tags'];

export function DefinitionBadges({ definition }: { definition: Pick<EventDefinition, 'verified' | 'hidden'> }) {
  return (
    <>
      {definition.verified ? <Badge tone="success">Verified</Badge> : null}
      {definition.hidden ? <Badge tone="warning">Hidden</Badge> : null}
    </>
  );
}

export default function DefinitionsListPage() {
  useDocumentTitle('Event definitions');
  const [params, setParams] = useUrlParams();
  const [searchText, setSearchText] = useState(params.get('search') ?? '');
  const search = useDebounced(searchText.trim(), 250);
  useEffect(() => {
    if (search !== (params.get('search') ?? '')) setParams({ search, offset: null });
  }, [search, params, setParams]);
  const listParams: DefinitionListParams = {
    search: params.get('search') ?? undefined,
    verified: params.get('verified') ?? undefined,
    exclude_hidden: params.get('exclude_hidden') ?? undefined,
    tags: params.get('tags') ?? undefined,
    offset: Number(params.get('offset') ?? 0) || undefined,
  };
  const list = useDefinitionList(listParams);
  const filtered = FILTER_KEYS.some((key) => params.get(key));
  const setFilter = (key: string) => (value: string) => setParams({ [key]: value, offset: null });
  const columns: Column<EventDefinition>[] = [
    {
      key: 'name',
      header: 'Event',
      render: (definition) => (
        <div className="flag-cell">
          <Link href={`/data-management/events/${definition.id}`} className="flag-key mono">
            {definition.name}
          </Link>
          {definition.description ? <div className="flag-name muted">{definition.description}</div> : null}
          {definition.tags.length > 0 ? (
            <div className="tag-list">
              {definition.tags.map((tag) => (
                <Tag key={tag}>{tag}</Tag>
              ))}
            </div>
          ) : null}
        </div>
      ),
    },
    {
      key: 'state',
      header: 'State',
      render: (definition) => (
        <span className="row">
          <DefinitionBadges definition={definition} />
        </span>
      ),
    },
    { key: 'last_seen', header: 'Last seen', wideOnly: true, render: (definition) => <span className="nowrap">{formatRelative(definition.last_seen_at)}</span> },
  ];
  return (
    <>
      <PageHeader title="Event definitions" description="Every event your project has received, with its description, owner, tags and schema." />
      <div className="filter-bar" role="search">
        <Field label="Search" hideLabel className="filter-search">
          {(control) => <Input {...control} type="search" placeholder="Search by event name" value={searchText} onChange={(event) => setSearchText(event.target.value)} />}
        </Field>
        <Field label="Verified" hideLabel>
          {(control) => <Select {...control} options={VERIFIED_OPTIONS} value={params.get('verified') ?? ''} onChange={(event) => setFilter('verified')(event.target.value)} />}
        </Field>
        <Field label="Hidden" hideLabel>
          {(control) => <Select {...control} options={HIDDEN_OPTIONS} value={params.get('exclude_hidden') ?? ''} onChange={(event) => setFilter('exclude_hidden')(event.target.value)} />}
        </Field>
        <Field label="Tags" hideLabel>
          {(control) => (
            <Input
              {...control}
              placeholder="Tags, comma separated"
              defaultValue={params.get('tags') ?? ''}
              onBlur={(event) => setFilter('tags')(event.target.value.trim())}
              onKeyDown={(event) => {
                if (event.key === 'Enter') setFilter('tags')(event.currentTarget.value.trim());
              }}
            />
          )}
        </Field>
        {filtered ? (
          <button
            type="button"
            className="btn btn-ghost"
            onClick={() => {
              setSearchText('');
              setParams(Object.fromEntries([...FILTER_KEYS, 'offset'].map((key) => [key, null])));
            }}
          >
            Clear filters
          </button>
        ) : null}
      </div>
      {list.isPending ? (
        <Spinner label="Loading event definitions…" />
      ) : list.isError ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.count === 0 && !filtered ? (
        <EmptyState title="No events yet">Events appear here as soon as your SDKs send them.</EmptyState>
      ) : (
        <>
          <Table caption="Event definitions" columns={columns} rows={list.data.results} rowKey={(definition) => definition.id} busy={list.isFetching && list.isPlaceholderData} empty="No events match these filters." />
          <Pagination noun="events" offset={listParams.offset ?? 0} limit={DEFINITION_PAGE_SIZE} count={list.data.count} onOffsetChange={(offset) => setParams({ offset: offset ? String(offset) : null })} />
        </>
      )}
      <details className="card">
        <summary className="card-header">Typed capture code for these events</summary>
        <div className="card-body">
          <CodeTabs />
        </div>
      </details>
    </>
  );
}
