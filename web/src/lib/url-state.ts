/** A page's filters kept in the address (shareable, back-button friendly). */
import { useCallback, useMemo } from 'react';
import { useLocation, useSearch } from 'wouter';

export function useUrlParams(): [URLSearchParams, (changes: Record<string, string | null>) => void] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const params = useMemo(() => new URLSearchParams(search), [search]);
  const update = useCallback(
    (changes: Record<string, string | null>) => {
      const next = new URLSearchParams(search);
      for (const [key, value] of Object.entries(changes)) {
        if (value === null || value === '') next.delete(key);
        else next.set(key, value);
      }
      const query = next.toString();
      navigate(query ? `${location}?${query}` : location, { replace: true });
    },
    [search, location, navigate],
  );
  return [params, update];
}
