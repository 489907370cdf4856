/** The flag API as the console's pages use it: query keys, reads and writes. */
import { HISTORY_PAGE_SIZE } from '../activity/history-page.ts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, withQuery } from '../api/client.ts';
import type { ActivityPage, Cohort, EvaluationReason, FeatureFlag, GroupType, Paginated } from '../api/types.ts';
import { useProject, useProjectPath } from '../shell/session.ts';

export const FLAG_PAGE_SIZE = 50;

export interface FlagListParams {
  search?: string;
  active?: string;
  type?: string;
  evaluation_runtime?: string;
  tags?: string;
  has_evaluation_tags?: string;
  created_by_id?: string;
  /** 'true': deleted flags only, to restore them. */
  deleted?: string;
  order?: string;
  offset?: number;
}

/** The list's filters, sort and page as the flag list's address holds them. */
export function flagListParamsFrom(params: URLSearchParams): FlagListParams {
  return {
    search: params.get('search') ?? undefined,
    active: params.get('active') ?? undefined,
    type: params.get('type') ?? undefined,
    evaluation_runtime: params.get('evaluation_runtime') ?? undefined,
    tags: params.get('tags') ?? undefined,
    has_evaluation_tags: params.get('has_evaluation_tags') ?? undefined,
    created_by_id: params.get('created_by_id') ?? undefined,
    deleted: params.get('deleted') ?? undefined,
    order: params.get('order') ?? undefined,
    offset: Number(params.get('offset') ?? 0) || undefined,
  };
}

export const flagKeys = {
  all: (projectId: number) => ['flags', projectId] as const,
  list: (projectId: number, params: FlagListParams) => ['flags', projectId, 'list', params] as const,
  one: (projectId: number, id: number) => ['flags', projectId, 'one', id] as const,
};

/** The list's request for these filters; `@current` is the caller's current project. */
export function flagListPath(projectId: number | '@current', params: FlagListParams): string {
  return withQuery(`/api/projects/${projectId}/feature_flags/`, { ...params, limit: FLAG_PAGE_SIZE });
}

export function fetchFlagList(projectId: number | '@current', params: FlagListParams, signal?: AbortSignal): Promise<Paginated<FeatureFlag>> {
  return api.get<Paginated<FeatureFlag>>(flagListPath(projectId, params), signal);
}

export function useFlagList(params: FlagListParams) {
  const project = useProject();
  return useQuery({
    queryKey: flagKeys.list(project.id, params),
    queryFn: ({ signal }) => fetchFlagList(project.id, params, signal),
    placeholderData: (previous) => previous,
  });
}

export function useFlag(id: number) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: flagKeys.one(project.id, id),
    queryFn: ({ signal }) => api.get<FeatureFlag>(path(`feature_flags/${id}/`), signal),
    enabled: Number.isInteger(id) && id > 0,
  });
}

/** Every live flag's id, key and variants, for choosing a flag dependency (one page of up to 1000). */
export function useFlagChoices() {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: [...flagKeys.all(project.id), 'choices'],
    queryFn: ({ signal }) => api.get<Paginated<FeatureFlag>>(withQuery(path('feature_flags/'), { limit: 1000, order: 'key' }), signal),
    select: (page) => page.results,
    staleTime: 30_000,
  });
}

export function useCohortChoices() {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: ['cohorts', project.id, 'choices'],
    queryFn: ({ signal }) => api.get<Paginated<Cohort>>(withQuery(path('cohorts/'), { limit: 1000 }), signal),
    select: (page) => page.results,
    staleTime: 30_000,
  });
}

export function useGroupTypes() {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: ['group-types', project.id],
    queryFn: ({ signal }) => api.get<GroupType[]>(path('groups_types/'), signal),
    staleTime: 60_000,
  });
}

/** PATCH a flag with its version (If-Match), so a change made meanwhile by someone else is refused, not lost. */
export function useUpdateFlag(id: number) {
  const project = useProject();
  const path = useProjectPath();
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ changes, version }: { changes: Record<string, unknown>; version?: number }) =>
      api.patch<FeatureFlag>(path(`feature_flags/${id}/`), changes, version === undefined ? undefined : { 'if-match': `"${version}"` }),
    onSuccess: (flag) => {
      client.setQueryData(flagKeys.one(project.id, id), flag);
      void client.invalidateQueries({ queryKey: flagKeys.all(project.id) });
    },
  });
}

export function useFlagActivity(id: number, page: number) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: [...flagKeys.one(project.id, id), 'activity', page],
    queryFn: ({ signal }) => api.get<ActivityPage>(withQuery(path(`feature_flags/${id}/activity/`), { page, limit: HISTORY_PAGE_SIZE }), signal),
    placeholderData: (previous) => previous,
  });
}

export function useEvaluationReasons(distinctId: string) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: ['evaluation-reasons', project.id, distinctId],
    queryFn: ({ signal }) => api.get<Record<string, EvaluationReason>>(withQuery(path('feature_flags/evaluation_reasons/'), { distinct_id: distinctId }), signal),
    enabled: distinctId !== '',
  });
}
