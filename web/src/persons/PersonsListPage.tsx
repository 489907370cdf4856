import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, withQuery } from '../api/client.ts';
import type { Paginated, Person } from '../api/types.ts';
import { useProject, useProjectPath } from '../shell/session.ts';
import { formatDate, formatDateTime, formatRelative } from '../lib/format.ts';
import { useListPage } from '../lib/list-page.ts';
import { Badge } from '../ui/Badge.tsx';
import { LinkButton } from '../ui/Button.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { ListResults, ListToolbar } from '../ui/ListPage.tsx';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import type { Column } from '../ui/Table.tsx';

const PAGE_SIZE = 50;
const FILTER_KEYS = ['search'];

const COLUMNS: Column<Person>[] = [
  {
    key: 'name',
    header: 'Person',
    render: (person) => (
      <div className="list-cell">
        <Link href={`/persons/${person.uuid}`} className="list-title">
          {person.name}
        </Link>
        <span className="muted small mono">{person.distinct_ids.slice(0, 2).join(', ')}{person.distinct_ids.length > 2 ? ` +${person.distinct_ids.length - 2}` : ''}</span>
      </div>
    ),
  },
  { key: 'identified', header: 'Identified', wideOnly: true, render: (person) => (person.is_identified ? <Badge tone="success">Identified</Badge> : <Badge>Anonymous</Badge>) },
  { key: 'properties', header: 'Properties', align: 'right', render: (person) => Object.keys(person.properties).length },
  { key: 'created_at', header: 'First seen', wideOnly: true, render: (person) => formatDate(person.created_at) },
  {
    key: 'last_seen_at',
    header: 'Last seen',
    render: (person) => (
      <span className="nowrap" title={person.last_seen_at ? formatDateTime(person.last_seen_at) : undefined}>
        {formatRelative(person.last_seen_at)}
      </span>
    ),
  },
];

export function PersonsListPage() {
  useDocumentTitle('Persons');
  const project = useProject();
  const path = useProjectPath();
  const list = useListPage(FILTER_KEYS);
  const search = list.value('search');
  const offset = list.offset;
  const persons = useQuery({
    queryKey: ['persons', project.id, search, offset],
    queryFn: ({ signal }) => api.get<Paginated<Person>>(withQuery(path('persons/'), { search, offset, limit: PAGE_SIZE }), signal),
    placeholderData: (previous) => previous,
  });
  return (
    <>
      <PageHeader title="Persons" description="Everyone your SDKs sent events for, with the properties flags are evaluated against." />
      <ListToolbar list={list} searchLabel="Search persons" searchPlaceholder="Search by e-mail, name or distinct id" />
      <ListResults
        list={list}
        query={persons}
        noun="persons"
        pageSize={PAGE_SIZE}
        caption="Persons"
        columns={COLUMNS}
        rowKey={(person) => person.uuid}
        noMatch="Nobody matches this search."
        emptyState={
          <EmptyState title="No persons yet" action={<LinkButton href="/onboarding">Install an SDK</LinkButton>}>
            Persons appear when an SDK sends events with the project token.
          </EmptyState>
        }
      />
    </>
  );
}
