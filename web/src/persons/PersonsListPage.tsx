import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, withQuery } from '../api/client.ts';
import type { Paginated, Person } from '../api/types.ts';
import { useProject, useProjectPath } from '../app/session.ts';
import { useDebounced } from '../lib/debounce.ts';
import { formatDate } from '../lib/format.ts';
import { Badge } from '../ui/Badge.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { ErrorNotice, Spinner } from '../ui/Feedback.tsx';
import { Field, Input } from '../ui/Field.tsx';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { Pagination } from '../ui/Pagination.tsx';
import { Table, type Column } from '../ui/Table.tsx';

const PAGE_SIZE = 50;

const COLUMNS: Column<Person>[] = [
  {
    key: 'name',
    header: 'Person',
    render: (person) => (
      <div className="flag-cell">
        <Link href={`/persons/${person.uuid}`} className="flag-key">
          {person.name}
        </Link>
        <span className="muted small mono">{person.distinct_ids.slice(0, 2).join(', ')}{person.distinct_ids.length > 2 ? ` +${person.distinct_ids.length - 2}` : ''}</span>
      </div>
    ),
  },
  { key: 'identified', header: 'Identified', wideOnly: true, render: (person) => (person.is_identified ? <Badge tone="success">Identified</Badge> : <Badge>Anonymous</Badge>) },
  { key: 'properties', header: 'Properties', align: 'right', render: (person) => Object.keys(person.properties).length },
  { key: 'created_at', header: 'First seen', wideOnly: true, render: (person) => formatDate(person.created_at) },
];

export function PersonsListPage() {
  useDocumentTitle('Persons');
  const project = useProject();
  const path = useProjectPath();
  const [searchText, setSearchText] = useState('');
  const [offset, setOffset] = useState(0);
  const search = useDebounced(searchText.trim(), 250);
  const list = useQuery({
    queryKey: ['persons', project.id, search, offset],
    queryFn: ({ signal }) => api.get<Paginated<Person>>(withQuery(path('persons/'), { search, offset, limit: PAGE_SIZE }), signal),
    placeholderData: (previous) => previous,
  });
  return (
    <>
      <PageHeader title="Persons" description="Everyone your SDKs sent events for, with the properties flags are evaluated against." />
      <div className="filter-bar" role="search">
        <Field label="Search persons" hideLabel className="filter-search">
          {(control) => (
            <Input
              {...control}
              type="search"
              placeholder="Search by e-mail, name or distinct id"
              value={searchText}
              onChange={(event) => {
                setSearchText(event.target.value);
                setOffset(0);
              }}
            />
          )}
        </Field>
      </div>
      {list.isPending ? (
        <Spinner label="Loading persons…" />
      ) : list.isError ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.count === 0 && search === '' ? (
        <EmptyState title="No persons yet">Persons appear when an SDK sends events with the project token (see Settings → Project for snippets).</EmptyState>
      ) : (
        <>
          <Table caption="Persons" columns={COLUMNS} rows={list.data.results} rowKey={(person) => person.uuid} empty="Nobody matches this search." busy={list.isPlaceholderData} />
          <Pagination noun="persons" offset={offset} limit={PAGE_SIZE} count={list.data.count} onOffsetChange={setOffset} />
        </>
      )}
    </>
  );
}
