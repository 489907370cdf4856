/** What the onboarding checklist reads: the project token, the newest event, whether a flag and a teammate exist. */
import { useQuery } from '@tanstack/react-query';
import { api, withQuery } from '../api/client.ts';
import type { FeatureFlag, Paginated, Project } from '../api/types.ts';
import type { EventItem } from '../events/api.ts';
import { useMe, useProject, useProjectPath } from '../shell/session.ts';

/** How often "waiting for your first event" asks again: an event shows within this time. */
export const FIRST_EVENT_POLL_MS = 1_000;

export function useProjectDetails() {
  const project = useProject();
  return useQuery({
    queryKey: ['project', project.id],
    queryFn: ({ signal }) => api.get<Project>(`/api/projects/${project.id}/`, signal),
  });
}

/** The newest event, asked for again every second until there is one. */
export function useFirstEvent() {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: ['onboarding', project.id, 'first-event'],
    queryFn: ({ signal }) => api.get<{ results: EventItem[] }>(withQuery(path('events/'), { limit: 1 }), signal),
    select: (page) => page.results[0] ?? null,
    refetchInterval: (query) => ((query.state.data?.results.length ?? 0) > 0 ? false : FIRST_EVENT_POLL_MS),
  });
}

export function useHasFlag() {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: ['flags', project.id, 'onboarding'],
    queryFn: ({ signal }) => api.get<Paginated<FeatureFlag>>(withQuery(path('feature_flags/'), { limit: 1 }), signal),
    select: (page) => page.count > 0,
  });
}

/** Whether anyone else is in the organization or invited to it. */
export function useHasTeam() {
  const me = useMe();
  const orgId = me.organization?.id;
  return useQuery({
    queryKey: ['onboarding', orgId, 'team'],
    enabled: orgId !== undefined,
    queryFn: async ({ signal }) => {
      const [members, invites] = await Promise.all([
        api.get<Paginated<unknown>>(withQuery(`/api/organizations/${orgId}/members/`, { limit: 2 }), signal),
        api.get<Paginated<unknown>>(withQuery(`/api/organizations/${orgId}/invites/`, { limit: 1 }), signal),
      ]);
      return members.count > 1 || invites.count > 0;
    },
  });
}

/** The checklist's steps (first event, first flag, a teammate) and whether all are answered. */
export function useChecklist() {
  const event = useFirstEvent();
  const flag = useHasFlag();
  const team = useHasTeam();
  const steps = [event.data != null, flag.data === true, team.data === true];
  const answered = [event, flag, team].every((query) => !query.isPending || query.isError);
  return { event, steps, answered, complete: steps.every(Boolean) };
}
