/**
 * A list page's state, kept in the address (shareable, back-button friendly): the search as typed
 * (sent once typing pauses), its filters, its sort and its page. Changing the search or a filter
 * goes back to the first page.
 */
import { useCallback, useEffect, useState } from 'react';
import { useDebounced } from './debounce.ts';
import { useUrlParams } from './url-state.ts';

const SEARCH_PAUSE_MS = 250;

export interface ListPageState {
  params: URLSearchParams;
  /** The search box's text, ahead of the address while typing. */
  searchText: string;
  setSearchText: (text: string) => void;
  /** A parameter's value in the address, '' when absent. */
  value: (key: string) => string;
  /** Sets a filter (or the sort) and goes back to the first page; '' removes it. */
  setFilter: (key: string, value: string) => void;
  offset: number;
  setOffset: (offset: number) => void;
  /** Whether the search or any filter narrows the list (then "nothing here" means "nothing matches"). */
  filtered: boolean;
  clearFilters: () => void;
}

/** `filterKeys`: the address parameters that narrow the list, `search` included when it has one. */
export function useListPage(filterKeys: readonly string[]): ListPageState {
  const [params, setParams] = useUrlParams();
  const [searchText, setSearchText] = useState(params.get('search') ?? '');
  const search = useDebounced(searchText.trim(), SEARCH_PAUSE_MS);
  useEffect(() => {
    if (search !== (params.get('search') ?? '')) setParams({ search, offset: null });
  }, [search, params, setParams]);

  const setFilter = useCallback((key: string, value: string) => setParams({ [key]: value, offset: null }), [setParams]);
  const setOffset = useCallback((offset: number) => setParams({ offset: offset > 0 ? String(offset) : null }), [setParams]);
  const clearFilters = useCallback(() => {
    setSearchText('');
    setParams(Object.fromEntries([...filterKeys, 'offset'].map((key) => [key, null])));
  }, [filterKeys, setParams]);

  const offset = Number(params.get('offset') ?? 0);
  return {
    params,
    searchText,
    setSearchText,
    value: (key) => params.get(key) ?? '',
    setFilter,
    offset: Number.isInteger(offset) && offset > 0 ? offset : 0,
    setOffset,
    filtered: filterKeys.some((key) => params.get(key)),
    clearFilters,
  };
}
