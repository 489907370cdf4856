/** One experiment: its state and actions, its results (exposures and a row per metric) and its history. */
import { useState } from 'react';
import { Link } from 'wouter';
import { PagedActivity } from '../activity/PagedActivity.tsx';
import { displayName } from '../shell/session.ts';
import { formatDateTime } from '../lib/format.ts';
import { useUrlParams } from '../lib/url-state.ts';
import { Button } from '../ui/Button.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { TabPanel, Tabs } from '../ui/Tabs.tsx';
import { useExperiment, useExperimentActivity, useExposures, useMetricResults } from './api.ts';
import { ExperimentStateBadge } from './ExperimentStateBadge.tsx';
import { ExposuresPanel, SampleRatioWarning } from './ExposuresPanel.tsx';
import { LifecycleActions } from './LifecycleActions.tsx';
import { MetricResults } from './MetricResults.tsx';
import { describeMetric } from './metric-text.ts';
import { variantsOf } from './status.ts';
import type { Experiment } from './types.ts';
import './experiments.css';

const TABS = [
  { id: 'results', label: 'Results' },
  { id: 'history', label: 'History' },
];

function isRelative(experiment: Experiment): boolean {
  const config = experiment.stats_config ?? {};
  const method = config.method === 'frequentist' ? 'frequentist' : 'bayesian';
  const section = config[method];
  return !(typeof section === 'object' && section !== null && (section as Record<string, unknown>).difference_type === 'ABSOLUTE');
}

function Results({ experiment }: { experiment: Experiment }) {
  const [generation, setGeneration] = useState(0);
  const exposures = useExposures(experiment, generation);
  const primary = useMetricResults(experiment, experiment.metrics, generation);
  const secondary = useMetricResults(experiment, experiment.metrics_secondary, generation);
  const busy = exposures.isFetching || primary.some((query) => query.isFetching) || secondary.some((query) => query.isFetching);
  const relative = isRelative(experiment);
  if (experiment.status === 'draft') {
    return (
      <div className="stack">
        <Notice>This experiment is a draft: launch it to start counting exposures and metrics.</Notice>
        <MetricList experiment={experiment} />
      </div>
    );
  }
  return (
    <div className="stack">
      <div className="row-between">
        <span className="muted small">{experiment.status === 'running' ? 'Results are at most a minute old.' : 'Results as of the end of the experiment.'}</span>
        <Button size="sm" loading={busy} onClick={() => setGeneration(generation + 1)}>
          Refresh results
        </Button>
      </div>
      {exposures.data ? <SampleRatioWarning exposures={exposures.data} /> : null}
      <ExposuresPanel query={exposures} />
      {experiment.metrics.length === 0 && experiment.metrics_secondary.length === 0 ? <Notice>No metrics yet: add one to see results.</Notice> : null}
      {experiment.metrics.map((metric, index) => (
        <MetricResults key={metric.uuid ?? index} metric={metric} query={primary[index]} relative={relative} label={`Primary metric ${index + 1}`} />
      ))}
      {experiment.metrics_secondary.map((metric, index) => (
        <MetricResults key={metric.uuid ?? index} metric={metric} query={secondary[index]} relative={relative} label={`Secondary metric ${index + 1}`} />
      ))}
    </div>
  );
}

function MetricList({ experiment }: { experiment: Experiment }) {
  return (
    <ul className="plain-list">
      {experiment.metrics.map((metric, index) => (
        <li key={metric.uuid ?? index}>Primary: {describeMetric(metric)}</li>
      ))}
      {experiment.metrics_secondary.map((metric, index) => (
        <li key={metric.uuid ?? index}>Secondary: {describeMetric(metric)}</li>
      ))}
    </ul>
  );
}

function History({ experiment }: { experiment: Experiment }) {
  const [page, setPage] = useState(1);
  return <PagedActivity activity={useExperimentActivity(experiment.id, page)} page={page} onPage={setPage} />;
}

export function ExperimentPage({ experimentId }: { experimentId: number }) {
  const experiment = useExperiment(experimentId);
  const [params, setParams] = useUrlParams();
  const tab = TABS.some((item) => item.id === params.get('tab')) ? params.get('tab')! : 'results';
  useDocumentTitle(experiment.data?.name ?? 'Experiment');
  if (experiment.isPending) return <Spinner label="Loading the experiment…" />;
  if (experiment.isError) return <ErrorNotice error={experiment.error} onRetry={() => void experiment.refetch()} />;
  const data = experiment.data;
  const method = data.stats_config?.method === 'frequentist' ? 'Frequentist' : 'Bayesian';
  return (
    <>
      <nav className="breadcrumbs" aria-label="Breadcrumbs">
        <Link href="/experiments">Experiments</Link> <span aria-hidden="true">/</span> <span>{data.name}</span>
      </nav>
      <PageHeader
        title={data.name}
        description={data.description || undefined}
        meta={
          <>
            <ExperimentStateBadge experiment={data} />
            <span className="muted small">
              Flag{' '}
              {data.feature_flag ? (
                <Link href={`/feature_flags/${data.feature_flag.id}`} className="mono">
                  {data.feature_flag_key}
                </Link>
              ) : (
                <span className="mono">{data.feature_flag_key}</span>
              )}{' '}
              · {variantsOf(data).map((v) => `${v.key} ${v.rollout_percentage}%`).join(' · ')} · {method} · created by {displayName(data.created_by)}
              {data.start_date ? ` · started ${formatDateTime(data.start_date)}` : ''}
              {data.end_date ? ` · ended ${formatDateTime(data.end_date)}` : ''}
            </span>
          </>
        }
        actions={<LifecycleActions experiment={data} />}
      />
      {data.conclusion || data.archived ? (
        <div className="stack-sm experiment-notices">
        {data.conclusion ? (
          <Notice tone="info">
            Concluded: <strong>{data.conclusion.replace('_', ' ')}</strong>
            {data.conclusion_comment ? ` — ${data.conclusion_comment}` : ''}
          </Notice>
        ) : null}
        {data.archived ? <Notice tone="warning">This experiment is archived.</Notice> : null}
        </div>
      ) : null}
      <Tabs tabs={TABS} selected={tab} onSelect={(id) => setParams({ tab: id === 'results' ? null : id })} label="Experiment sections" idPrefix="experiment" />
      <TabPanel idPrefix="experiment" id={tab}>
        {tab === 'results' ? <Results experiment={data} /> : <History experiment={data} />}
      </TabPanel>
    </>
  );
}
