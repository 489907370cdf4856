import { Link } from 'wouter';
import type { Cohort } from '../api/types.ts';
import { displayName } from '../shell/session.ts';
import { formatCount, formatDate } from '../lib/format.ts';
import { useListPage } from '../lib/list-page.ts';
import { Badge } from '../ui/Badge.tsx';
import { LinkButton } from '../ui/Button.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { ListResults, ListToolbar } from '../ui/ListPage.tsx';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import type { Column } from '../ui/Table.tsx';
import { COHORT_PAGE_SIZE, useCohortList } from './api.ts';

const FILTER_KEYS = ['search'];

const COLUMNS: Column<Cohort>[] = [
  {
    key: 'name',
    header: 'Name',
    render: (cohort) => (
      <div className="list-cell">
        <Link href={`/cohorts/${cohort.id}`} className="list-title">
          {cohort.name || `Cohort ${cohort.id}`}
        </Link>
        {cohort.description ? <div className="muted small">{cohort.description}</div> : null}
      </div>
    ),
  },
  { key: 'type', header: 'Type', render: (cohort) => <Badge tone={cohort.is_static ? 'neutral' : 'info'}>{cohort.is_static ? 'Static' : 'Dynamic'}</Badge> },
  { key: 'count', header: 'Persons', align: 'right', render: (cohort) => (cohort.is_calculating ? <span className="muted">calculating…</span> : cohort.count === null ? '—' : formatCount(cohort.count)) },
  { key: 'created_by', header: 'Created by', wideOnly: true, render: (cohort) => displayName(cohort.created_by) },
  { key: 'created_at', header: 'Created', wideOnly: true, render: (cohort) => formatDate(cohort.created_at) },
];

export function CohortsListPage() {
  useDocumentTitle('Cohorts');
  const list = useListPage(FILTER_KEYS);
  const cohorts = useCohortList(list.value('search'), list.offset);
  return (
    <>
      <PageHeader
        title="Cohorts"
        description="Groups of persons, by their properties or as a fixed list, to target flags at."
        actions={
          <LinkButton href="/cohorts/new" variant="primary">
            New cohort
          </LinkButton>
        }
      />
      <ListToolbar list={list} searchLabel="Search cohorts" searchPlaceholder="Search by name" />
      <ListResults
        list={list}
        query={cohorts}
        noun="cohorts"
        pageSize={COHORT_PAGE_SIZE}
        caption="Cohorts"
        columns={COLUMNS}
        rowKey={(cohort) => cohort.id}
        noMatch="No cohorts match this search."
        emptyState={
          <EmptyState title="No cohorts yet" action={<LinkButton href="/cohorts/new" variant="primary">Create a cohort</LinkButton>}>
            A cohort can be used in a flag's release conditions: “is in cohort Beta testers”.
          </EmptyState>
        }
      />
    </>
  );
}
