/** The experiments API as the console's pages use it: list, one, create, lifecycle actions, results. */
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { HISTORY_PAGE_SIZE } from '../activity/history-page.ts';
import { api, apiRequest, withQuery } from '../api/client.ts';
import type { ActivityPage, Paginated } from '../api/types.ts';
import { useProject, useProjectPath } from '../shell/session.ts';
import { flagKeys } from '../flags/api.ts';
import type { LifecycleAction } from './status.ts';
import type { Experiment, ExperimentMetric, ExposureResult, MetricResult } from './types.ts';

export const EXPERIMENT_PAGE_SIZE = 50;

export interface ExperimentListParams {
  search?: string;
  status?: string;
  archived?: string;
  offset?: number;
}

export const experimentKeys = {
  all: (projectId: number) => ['experiments', projectId] as const,
  list: (projectId: number, params: ExperimentListParams) => ['experiments', projectId, 'list', params] as const,
  one: (projectId: number, id: number) => ['experiments', projectId, 'one', id] as const,
  results: (projectId: number, id: number) => ['experiments', projectId, 'one', id, 'results'] as const,
};

export function useExperimentList(params: ExperimentListParams) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: experimentKeys.list(project.id, params),
    queryFn: ({ signal }) => api.get<Paginated<Experiment>>(withQuery(path('experiments/'), { ...params, limit: EXPERIMENT_PAGE_SIZE }), signal),
    placeholderData: (previous) => previous,
  });
}

export function useExperiment(id: number) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: experimentKeys.one(project.id, id),
    queryFn: ({ signal }) => api.get<Experiment>(path(`experiments/${id}/`), signal),
    enabled: Number.isInteger(id) && id > 0,
  });
}

export function useCreateExperiment() {
  const project = useProject();
  const path = useProjectPath();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Record<string, unknown>) => api.post<Experiment>(path('experiments/'), body),
    onSuccess: () => client.invalidateQueries({ queryKey: experimentKeys.all(project.id) }),
  });
}

export function useLifecycleAction(id: number) {
  const project = useProject();
  const path = useProjectPath();
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ action, body }: { action: LifecycleAction; body?: Record<string, unknown> }) => api.post<Experiment>(path(`experiments/${id}/${action}/`), body ?? {}),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: experimentKeys.all(project.id) });
      // the flag changed too
      void client.invalidateQueries({ queryKey: flagKeys.all(project.id) });
    },
  });
}

// Results of a running experiment move; the server keeps them at most 60 s old.
const RESULTS_REFRESH_MS = 60_000;

/** `refresh`: past the server's cache (results at most 60 s old), computed now. */
function runQuery<T>(path: (p: string) => string, query: Record<string, unknown>, refresh: boolean, signal: AbortSignal): Promise<T> {
  return apiRequest<T>(path('query/'), { method: 'POST', body: refresh ? { query, refresh: 'force_blocking' } : { query }, signal });
}

/**
 * Each metric's results. `generation` counts the person's "Refresh" clicks: past 0 the server
 * computes afresh instead of answering from its cache.
 */
export function useMetricResults(experiment: Pick<Experiment, 'id' | 'status'>, metrics: ExperimentMetric[], generation = 0) {
  const project = useProject();
  const path = useProjectPath();
  return useQueries({
    queries: metrics.map((metric) => ({
      queryKey: [...experimentKeys.results(project.id, experiment.id), 'metric', metric.uuid ?? JSON.stringify(metric), generation],
      queryFn: ({ signal }: { signal: AbortSignal }) => runQuery<MetricResult>(path, { kind: 'ExperimentQuery', experiment_id: experiment.id, metric }, generation > 0, signal),
      placeholderData: (previous: MetricResult | undefined) => previous,
      enabled: experiment.status !== 'draft',
      refetchInterval: experiment.status === 'running' ? RESULTS_REFRESH_MS : false,
      retry: false,
    })),
  });
}

export function useExposures(experiment: Pick<Experiment, 'id' | 'status'>, generation = 0) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: [...experimentKeys.results(project.id, experiment.id), 'exposures', generation],
    queryFn: ({ signal }) => runQuery<ExposureResult>(path, { kind: 'ExperimentExposureQuery', experiment_id: experiment.id }, generation > 0, signal),
    placeholderData: (previous) => previous,
    enabled: experiment.status !== 'draft',
    refetchInterval: experiment.status === 'running' ? RESULTS_REFRESH_MS : false,
  });
}

export function useExperimentActivity(id: number, page: number) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: [...experimentKeys.all(project.id), 'activity', id, page],
    queryFn: ({ signal }) => api.get<ActivityPage>(withQuery(path(`experiments/${id}/activity/`), { page, limit: HISTORY_PAGE_SIZE }), signal),
    placeholderData: (previous) => previous,
  });
}
