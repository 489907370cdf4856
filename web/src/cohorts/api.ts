import { useQuery } from '@tanstack/react-query';
import { api, withQuery } from '../api/client.ts';
import type { Cohort, Paginated, Person } from '../api/types.ts';
import { useProject, useProjectPath } from '../shell/session.ts';

export const COHORT_PAGE_SIZE = 50;

export function useCohortList(search: string, offset: number) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: ['cohorts', project.id, 'list', search, offset],
    queryFn: ({ signal }) => api.get<Paginated<Cohort>>(withQuery(path('cohorts/'), { search, offset, limit: COHORT_PAGE_SIZE }), signal),
    placeholderData: (previous) => previous,
  });
}

export function useCohort(id: number | null) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: ['cohorts', project.id, 'one', id],
    queryFn: ({ signal }) => api.get<Cohort>(path(`cohorts/${id}/`), signal),
    enabled: id !== null,
  });
}

export function useCohortPersons(id: number, offset: number) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: ['cohorts', project.id, 'one', id, 'persons', offset],
    queryFn: ({ signal }) => api.get<Omit<Paginated<Person>, 'count'>>(withQuery(path(`cohorts/${id}/persons/`), { offset, limit: 25 }), signal),
    placeholderData: (previous) => previous,
  });
}
