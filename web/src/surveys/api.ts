/** The survey API as the console's pages use it: query keys, reads and writes. */
import { HISTORY_PAGE_SIZE } from '../activity/history-page.ts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, withQuery } from '../api/client.ts';
import type { ActivityPage, Paginated } from '../api/types.ts';
import { useProject, useProjectPath } from '../shell/session.ts';
import type { ResponsesPage, Survey, SurveyStats } from './types.ts';

export const SURVEY_PAGE_SIZE = 50;

export interface SurveyListParams {
  search?: string;
  archived?: string;
  offset?: number;
}

/** Date window and archived responses, shared by the results of one survey. */
export interface ResultsFilter {
  date_from?: string;
  date_to?: string;
  exclude_archived?: boolean;
}

export const surveyKeys = {
  all: (projectId: number) => ['surveys', projectId] as const,
  list: (projectId: number, params: SurveyListParams) => ['surveys', projectId, 'list', params] as const,
  one: (projectId: number, id: string) => ['surveys', projectId, 'one', id] as const,
  results: (projectId: number, id: string) => ['surveys', projectId, 'one', id, 'results'] as const,
};

export function useSurveyList(params: SurveyListParams) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: surveyKeys.list(project.id, params),
    queryFn: ({ signal }) => api.get<Paginated<Survey>>(withQuery(path('surveys/'), { ...params, limit: SURVEY_PAGE_SIZE }), signal),
    placeholderData: (previous) => previous,
  });
}

/** Responses per survey (each in its own window), for the surveys shown. */
export function useResponseCounts(ids: string[]) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: [...surveyKeys.all(project.id), 'responses-count', ids],
    queryFn: ({ signal }) => api.get<Record<string, number>>(withQuery(path('surveys/responses_count/'), { survey_ids: ids.join(','), exclude_archived: true }), signal),
    enabled: ids.length > 0,
    placeholderData: (previous) => previous,
  });
}

export function useSurvey(id: string | null) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: surveyKeys.one(project.id, id ?? ''),
    queryFn: ({ signal }) => api.get<Survey>(path(`surveys/${id}/`), signal),
    enabled: id !== null && id !== '',
  });
}

export function useUpdateSurvey(id: string) {
  const project = useProject();
  const path = useProjectPath();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (changes: Record<string, unknown>) => api.patch<Survey>(path(`surveys/${id}/`), changes),
    onSuccess: () => client.invalidateQueries({ queryKey: surveyKeys.all(project.id) }),
  });
}

export function useSurveyStats(id: string, filter: ResultsFilter) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: [...surveyKeys.results(project.id, id), 'stats', filter],
    queryFn: ({ signal }) => api.get<SurveyStats>(withQuery(path(`surveys/${id}/stats/`), { ...filter, exclude_archived: filter.exclude_archived ? 'true' : undefined }), signal),
    placeholderData: (previous) => previous,
  });
}

/** The responses endpoint's path with the results filter and a search; `format=csv` for the download. */
export function responsesPath(projectPath: (path: string) => string, id: string, filter: ResultsFilter, extra: Record<string, string | number | undefined> = {}): string {
  return withQuery(projectPath(`surveys/${id}/responses/`), {
    date_from: filter.date_from,
    date_to: filter.date_to,
    exclude_archived: filter.exclude_archived ? 'true' : undefined,
    ...extra,
  });
}

/** The largest page the responses list gives (larger limits are clamped to it). */
const RESPONSES_PAGE_MAX = 1000;

/** Pages of responses followed through `next` up to `max` responses (the results' sample), in as few requests as the server allows. */
export function useResponsesSample(id: string, filter: ResultsFilter, max: number) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: [...surveyKeys.results(project.id, id), 'sample', filter, max],
    queryFn: async ({ signal }) => {
      const results: ResponsesPage['results'] = [];
      let next: string | null = responsesPath(path, id, filter, { limit: Math.min(max, RESPONSES_PAGE_MAX) });
      while (next && results.length < max) {
        const page: ResponsesPage = await api.get<ResponsesPage>(sameOrigin(next), signal);
        results.push(...page.results);
        next = page.next;
      }
      return { results: results.slice(0, max), complete: next === null };
    },
    placeholderData: (previous) => previous,
  });
}

/** A `next` URL as the API writes it (absolute) made relative, so the fetch stays on this origin. */
export function sameOrigin(url: string): string {
  if (url.startsWith('/')) return url;
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

export function useSurveyActivity(id: string | null, page: number) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: [...surveyKeys.all(project.id), 'activity', id, page],
    queryFn: ({ signal }) => api.get<ActivityPage>(withQuery(path(id ? `surveys/${id}/activity/` : 'surveys/activity/'), { page, limit: HISTORY_PAGE_SIZE }), signal),
    placeholderData: (previous) => previous,
  });
}
