import { lazy, Suspense, useMemo } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import type { Dashboard, FeatureFlag, TrendSeries } from '../api/types.ts';
import { useProject, useProjectPath } from '../shell/session.ts';
import { formatCount } from '../lib/format.ts';
import { Button } from '../ui/Button.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { ErrorNotice, Spinner } from '../ui/Feedback.tsx';
import { Card } from '../ui/Page.tsx';
import { flagKeys } from './api.ts';

const TrendChart = lazy(() => import('../charts/TrendChart.tsx'));

function seriesLines(series: TrendSeries[]) {
  return series.map((item) => ({ label: item.breakdown_value ?? item.label, values: item.data }));
}

function UsageCard({ title, series }: { title: string; series: TrendSeries[] }) {
  const lines = useMemo(() => seriesLines(series), [series]);
  const total = series.reduce((sum, item) => sum + item.count, 0);
  return (
    <Card title={title} actions={<span className="muted small">{formatCount(total)} in 30 days</span>}>
      {series.length === 0 || total === 0 ? (
        <EmptyState title="No calls in the last 30 days">
          SDKs report a <code>$feature_flag_called</code> event when they evaluate the flag; calls appear here per value.
        </EmptyState>
      ) : (
        <Suspense fallback={<Spinner label="Drawing the chart…" />}>
          <TrendChart days={series[0].days} lines={lines} title={`${title}, per day and value, last 30 days`} />
        </Suspense>
      )}
    </Card>
  );
}

/** Calls and unique users per day and value, from the flag's usage dashboard (`$feature_flag_called`). */
export function FlagUsage({ flag }: { flag: FeatureFlag }) {
  const project = useProject();
  const path = useProjectPath();
  const client = useQueryClient();
  const dashboard = useQuery({
    queryKey: ['dashboard', project.id, flag.usage_dashboard],
    queryFn: ({ signal }) => api.get<Dashboard>(path(`dashboards/${flag.usage_dashboard}/`), signal),
    enabled: flag.usage_dashboard !== null,
  });
  const create = useMutation({
    mutationFn: () => api.post(path(`feature_flags/${flag.id}/enrich_usage_dashboard/`)),
    onSuccess: () => client.invalidateQueries({ queryKey: flagKeys.one(project.id, flag.id) }),
  });
  if (flag.usage_dashboard === null) {
    return (
      <EmptyState
        title="This flag has no usage dashboard"
        action={
          <Button variant="primary" loading={create.isPending} onClick={() => create.mutate()}>
            Create it
          </Button>
        }
      >
        It was created without one. Creating it starts counting calls from the events already stored.
      </EmptyState>
    );
  }
  if (dashboard.isPending) return <Spinner label="Loading usage…" />;
  if (dashboard.isError) return <ErrorNotice error={dashboard.error} onRetry={() => void dashboard.refetch()} />;
  return (
    <div className="stack">
      {dashboard.data.tiles.map((tile) => (
        // A result that cannot be computed is null: shown as no calls.
        <UsageCard key={tile.id} title={tile.insight.name} series={tile.insight.result ?? []} />
      ))}
    </div>
  );
}
