/** A flag's scheduled changes (`/scheduled_changes/?model_name=FeatureFlag&record_id=`): reads and writes. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, withQuery } from '../../api/client.ts';
import type { AnswerOf, ItemOf } from '../../api/types.ts';
import { useProject, useProjectPath } from '../../shell/session.ts';
import { isPaused, type ScheduleBody } from './schedule-form.ts';

export type ScheduledChange = ItemOf<'scheduled_changes_list'>;
type SchedulePage = AnswerOf<'scheduled_changes_list'>;

/** While a change is due within this long, the list is read again every few seconds to show it run. */
const SOON_MS = 2 * 60_000;
const POLL_MS = 3_000;

export const scheduleKeys = {
  flag: (projectId: number, flagId: number) => ['scheduled-changes', projectId, flagId] as const,
};

export function useFlagSchedules(flagId: number) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: scheduleKeys.flag(project.id, flagId),
    queryFn: ({ signal }) =>
      api.get<SchedulePage>(withQuery(path('scheduled_changes/'), { model_name: 'FeatureFlag', record_id: String(flagId), limit: 100 }), signal),
    refetchInterval: (query) => {
      const soon = Date.now() + SOON_MS;
      const due = query.state.data?.results.some((row) => row.executed_at === null && !isPaused(row) && new Date(row.scheduled_at).getTime() <= soon);
      return due ? POLL_MS : false;
    },
  });
}

function useScheduleWrite<Input>(flagId: number, write: (path: (rest: string) => string, input: Input) => Promise<unknown>) {
  const project = useProject();
  const path = useProjectPath();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: Input) => write(path, input),
    onSettled: () => {
      void client.invalidateQueries({ queryKey: scheduleKeys.flag(project.id, flagId) });
      // A schedule an approval policy covers is bound to a change request (made, or expired on delete):
      // the flag's banner and the review page read theirs again.
      void client.invalidateQueries({ queryKey: ['change-requests', project.id] });
    },
  });
}

export const useCreateSchedule = (flagId: number) =>
  useScheduleWrite(flagId, (path, body: ScheduleBody) => api.post<ScheduledChange>(path('scheduled_changes/'), body));

/** Pause (`is_recurring: false`, the recurrence kept) or resume a recurring schedule. */
export const useSetRecurring = (flagId: number) =>
  useScheduleWrite(flagId, (path, { id, recurring }: { id: number; recurring: boolean }) =>
    api.patch<ScheduledChange>(path(`scheduled_changes/${id}/`), { is_recurring: recurring }),
  );

export const useDeleteSchedule = (flagId: number) => useScheduleWrite(flagId, (path, id: number) => api.delete(path(`scheduled_changes/${id}/`)));
