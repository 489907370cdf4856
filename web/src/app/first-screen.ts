/**
 * The first screen's data, asked for before React renders. Who is signed in (`users/@me`) decides
 * which project the pages read, so every page's own requests wait for it; on the flag list, the
 * console's home page, its first page is asked for at the same time from `@current` (the same
 * project `users/@me` names) instead of one round trip later.
 */
import type { QueryClient } from '@tanstack/react-query';
import { fetchFlagList, flagKeys, flagListParamsFrom } from '../flags/api.ts';
import { meQuery } from '../shell/session.ts';

export function fetchFirstScreen(client: QueryClient, location: Pick<Location, 'pathname' | 'search'>): void {
  const me = client.fetchQuery(meQuery);
  if (location.pathname !== '/feature_flags' && location.pathname !== '/') {
    me.catch(() => undefined); // the sign-in gate shows what went wrong
    return;
  }
  const params = flagListParamsFrom(new URLSearchParams(location.search));
  const list = fetchFlagList('@current', params);
  list.catch(() => undefined); // the page asks again and shows its own error
  me.then(
    (person) => {
      // The page's query finds this request in flight (or its answer) and does not send its own.
      if (person.team) void client.prefetchQuery({ queryKey: flagKeys.list(person.team.id, params), queryFn: () => list });
    },
    () => undefined,
  );
}
