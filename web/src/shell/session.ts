/** Who is signed in, and which project the console shows: both from `GET /api/users/@me/`. */
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import type { Me, TeamSummary } from '../api/types.ts';

export const ME_KEY = ['me'] as const;

export const meQuery = queryOptions({ queryKey: ME_KEY, queryFn: ({ signal }) => api.get<Me>('/api/users/@me/', signal), staleTime: 60_000 });

export function useMeQuery() {
  return useQuery(meQuery);
}

/** The signed-in person; only used below the sign-in gate, where it is always loaded. */
export function useMe(): Me {
  const { data } = useMeQuery();
  if (!data) throw new Error('useMe is used outside the signed-in part of the console');
  return data;
}

export function useProject(): TeamSummary {
  const me = useMe();
  if (!me.team) throw new Error('The signed-in person has no current project');
  return me.team;
}

/** `/api/projects/{current}/` + `path`. */
export function useProjectPath(): (path: string) => string {
  const project = useProject();
  return (path: string) => `/api/projects/${project.id}/${path}`;
}

/** The projects of the current organization, for the switcher. */
export function useTeams(): TeamSummary[] {
  const me = useMe();
  return me.organization?.teams ?? (me.team ? [me.team] : []);
}

/** After signing in or out, or switching project, everything cached belongs to someone else. */
export function useResetSession(): () => Promise<void> {
  const client = useQueryClient();
  return async () => {
    client.removeQueries({ predicate: (query) => query.queryKey[0] !== ME_KEY[0] });
    await client.invalidateQueries({ queryKey: ME_KEY });
  };
}

export function displayName(user: { first_name: string; last_name: string; email: string } | null | undefined): string {
  if (!user) return 'Someone';
  const name = `${user.first_name} ${user.last_name}`.trim();
  return name || user.email;
}
