/** The parts every list page shares: its toolbar of search and filters, and its table with pages. */
import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import type { Paginated } from '../api/types.ts';
import type { ListPageState } from '../lib/list-page.ts';
import { useShownOffset } from '../lib/shown-page.ts';
import { ErrorNotice, Spinner } from './Feedback.tsx';
import { Field, Input, Select, type Option } from './Field.tsx';
import { Pagination } from './Pagination.tsx';
import { Table, type Column } from './Table.tsx';

interface ListToolbarProps {
  list: ListPageState;
  searchLabel?: string;
  searchPlaceholder: string;
  /** The page's filters (FilterSelect, TagsFilter). */
  children?: ReactNode;
}

export function ListToolbar({ list, searchLabel = 'Search', searchPlaceholder, children }: ListToolbarProps) {
  return (
    <div className="filter-bar" role="search">
      <Field label={searchLabel} hideLabel className="filter-search">
        {(control) => <Input {...control} type="search" placeholder={searchPlaceholder} value={list.searchText} onChange={(event) => list.setSearchText(event.target.value)} />}
      </Field>
      {children}
      {list.filtered ? (
        <button type="button" className="btn btn-ghost" onClick={list.clearFilters}>
          Clear filters
        </button>
      ) : null}
    </div>
  );
}

export function FilterSelect({ list, name, label, options }: { list: ListPageState; name: string; label: string; options: Option[] }) {
  return (
    <Field label={label} hideLabel>
      {(control) => <Select {...control} options={options} value={list.value(name)} onChange={(event) => list.setFilter(name, event.target.value)} />}
    </Field>
  );
}

/** Comma-separated tags, applied on Enter or when the field is left. */
export function TagsFilter({ list, name = 'tags' }: { list: ListPageState; name?: string }) {
  return (
    <Field label="Tags" hideLabel>
      {(control) => (
        <Input
          {...control}
          // A new key when the address changes (e.g. "Clear filters") shows the address's value.
          key={list.value(name)}
          placeholder="Tags (a, b)"
          defaultValue={list.value(name)}
          onBlur={(event) => list.setFilter(name, event.target.value.trim())}
          onKeyDown={(event) => {
            if (event.key === 'Enter') list.setFilter(name, event.currentTarget.value.trim());
          }}
        />
      )}
    </Field>
  );
}

interface ListResultsProps<Row> {
  list: ListPageState;
  query: UseQueryResult<Paginated<Row>>;
  /** Plural, lower case: "flags". */
  noun: string;
  pageSize: number;
  caption: string;
  columns: Column<Row>[];
  rowKey: (row: Row) => string | number;
  /** What an empty project shows (nothing at all, nothing filtered). */
  emptyState: ReactNode;
  /** The table's line when the search or filters match nothing. */
  noMatch: string;
  /** Columns with a `sortKey` sort the list through the address's `order`, from `defaultOrder`. */
  defaultOrder?: string;
}

/** Loading, failure, an empty project, or the table with its pages. */
export function ListResults<Row>({ list, query, noun, pageSize, caption, columns, rowKey, emptyState, noMatch, defaultOrder }: ListResultsProps<Row>) {
  const shownOffset = useShownOffset(list.offset, query.isPlaceholderData);
  if (query.isPending) return <Spinner label={`Loading ${noun}…`} />;
  if (query.isError) return <ErrorNotice error={query.error} onRetry={() => void query.refetch()} />;
  if (query.data.count === 0 && !list.filtered) return <>{emptyState}</>;
  return (
    <>
      <Table
        caption={caption}
        columns={columns}
        rows={query.data.results}
        rowKey={rowKey}
        order={defaultOrder === undefined ? undefined : list.value('order') || defaultOrder}
        onOrderChange={defaultOrder === undefined ? undefined : (order) => list.setFilter('order', order)}
        busy={query.isPlaceholderData}
        empty={noMatch}
      />
      <Pagination noun={noun} offset={shownOffset} limit={pageSize} count={query.data.count} onOffsetChange={list.setOffset} />
    </>
  );
}
