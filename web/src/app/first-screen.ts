/**
 * The first screen's data, asked for before React renders. Who is signed in (`users/@me`) decides
 * which project the pages read, so every page's own requests wait for it; on the flag list, the
 * console's home page, its first page is asked for at the same time from `@current` (the same
 * project `users/@me` names) instead of one round trip later.
 */
import type { QueryClient } from '@tanstack/react-query';
import { fetchFlagList, flagKeys, flagListParamsFrom } from '../flags/api.ts';
import { meQuery } from '../shell/session.ts';

/** The environment a flag-list address names (`/project/7/feature_flags` → 7), `@current` for an address written without one. */
function flagListEnvironment(pathname: string): number | '@current' | null {
  if (pathname === '/feature_flags' || pathname === '/') return '@current';
  const match = /^\/project\/(\d{1,10})\/feature_flags\/?$/.exec(pathname);
  return match ? Number(match[1]) : null;
}

export function fetchFirstScreen(client: QueryClient, location: Pick<Location, 'pathname' | 'search'>): void {
  const me = client.fetchQuery(meQuery);
  const environment = flagListEnvironment(location.pathname);
  if (environment === null) {
    me.catch(() => undefined); // the sign-in gate shows what went wrong
    return;
  }
  const params = flagListParamsFrom(new URLSearchParams(location.search));
  const list = fetchFlagList(environment, params);
  list.catch(() => undefined); // the page asks again and shows its own error
  me.then(
    (person) => {
      // The page's query finds this request in flight (or its answer) and does not send its own;
      // an address naming another environment than the current one is switched to first, and asks again.
      if (person.team && (environment === '@current' || environment === person.team.id)) {
        void client.prefetchQuery({ queryKey: flagKeys.list(person.team.id, params), queryFn: () => list });
      }
    },
    () => undefined,
  );
}
