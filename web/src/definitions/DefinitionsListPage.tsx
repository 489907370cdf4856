import { Link } from 'wouter';
import { formatRelative } from '../lib/format.ts';
import { useListPage } from '../lib/list-page.ts';
import { Badge, Tag } from '../ui/Badge.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { FilterSelect, ListResults, ListToolbar, TagsFilter } from '../ui/ListPage.tsx';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import type { Column } from '../ui/Table.tsx';
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
  const list = useListPage(FILTER_KEYS);
  const listParams: DefinitionListParams = {
    search: list.value('search') || undefined,
    verified: list.value('verified') || undefined,
    exclude_hidden: list.value('exclude_hidden') || undefined,
    tags: list.value('tags') || undefined,
    offset: list.offset || undefined,
  };
  const definitions = useDefinitionList(listParams);
  const columns: Column<EventDefinition>[] = [
    {
      key: 'name',
      header: 'Event',
      render: (definition) => (
        <div className="list-cell">
          <Link href={`/data-management/events/${definition.id}`} className="list-title mono">
            {definition.name}
          </Link>
          {definition.description ? <div className="list-subtitle muted">{definition.description}</div> : null}
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
      <ListToolbar list={list} searchPlaceholder="Search by event name">
        <FilterSelect list={list} name="verified" label="Verified" options={VERIFIED_OPTIONS} />
        <FilterSelect list={list} name="exclude_hidden" label="Hidden" options={HIDDEN_OPTIONS} />
        <TagsFilter list={list} />
      </ListToolbar>
      <ListResults
        list={list}
        query={definitions}
        noun="events"
        pageSize={DEFINITION_PAGE_SIZE}
        caption="Event definitions"
        columns={columns}
        rowKey={(definition) => definition.id}
        noMatch="No events match these filters."
        emptyState={<EmptyState title="No events yet">Events appear here as soon as your SDKs send them.</EmptyState>}
      />
      <details className="card">
        <summary className="card-header">Typed capture code for these events</summary>
        <div className="card-body">
          <CodeTabs />
        </div>
      </details>
    </>
  );
}
