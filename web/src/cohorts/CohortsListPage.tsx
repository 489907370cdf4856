import { useState } from 'react';
import { Link } from 'wouter';
import type { Cohort } from '../api/types.ts';
import { displayName } from '../app/session.ts';
import { useDebounced } from '../lib/debounce.ts';
import { formatCount, formatDate } from '../lib/format.ts';
import { Badge } from '../ui/Badge.tsx';
import { LinkButton } from '../ui/Button.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { ErrorNotice, Spinner } from '../ui/Feedback.tsx';
import { Field, Input } from '../ui/Field.tsx';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { Pagination } from '../ui/Pagination.tsx';
import { Table, type Column } from '../ui/Table.tsx';
import { COHORT_PAGE_SIZE, useCohortList } from './api.ts';

const COLUMNS: Column<Cohort>[] = [
  {
    key: 'name',
    header: 'Name',
    render: (cohort) => (
      <div className="flag-cell">
        <Link href={`/cohorts/${cohort.id}`} className="flag-key">
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
  const [searchText, setSearchText] = useState('');
  const [offset, setOffset] = useState(0);
  const search = useDebounced(searchText.trim(), 250);
  const list = useCohortList(search, offset);
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
      <div className="filter-bar" role="search">
        <Field label="Search cohorts" hideLabel className="filter-search">
          {(control) => (
            <Input
              {...control}
              type="search"
              placeholder="Search by name"
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
        <Spinner label="Loading cohorts…" />
      ) : list.isError ? (
        <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.count === 0 && search === '' ? (
        <EmptyState title="No cohorts yet" action={<LinkButton href="/cohorts/new" variant="primary">Create a cohort</LinkButton>}>
          A cohort can be used in a flag's release conditions: “is in cohort Beta testers”.
        </EmptyState>
      ) : (
        <>
          <Table caption="Cohorts" columns={COLUMNS} rows={list.data.results} rowKey={(cohort) => cohort.id} empty="No cohorts match this search." busy={list.isPlaceholderData} />
          <Pagination noun="cohorts" offset={offset} limit={COHORT_PAGE_SIZE} count={list.data.count} onOffsetChange={setOffset} />
        </>
      )}
    </>
  );
}
