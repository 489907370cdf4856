import { Link } from 'wouter';
import { errorMessage, isApiError } from '../api/errors.ts';
import { displayName } from '../shell/session.ts';
import { formatDate } from '../lib/format.ts';
import { useListPage } from '../lib/list-page.ts';
import { LinkButton } from '../ui/Button.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { FilterSelect, ListResults, ListToolbar } from '../ui/ListPage.tsx';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import type { Column } from '../ui/Table.tsx';
import { EXPERIMENT_PAGE_SIZE, useExperimentList, useMetricResults, type ExperimentListParams } from './api.ts';
import { describeMetric, outcomeText } from './metric-text.ts';
import { ExperimentStateBadge } from './ExperimentStateBadge.tsx';
import { variantsOf } from './status.ts';
import type { Experiment } from './types.ts';
import './experiments.css';

const FILTER_KEYS = ['search', 'status', 'archived'];
const STATUS_OPTIONS = [
  { value: '', label: 'Any status' },
  { value: 'draft', label: 'Draft' },
  { value: 'running', label: 'Running' },
  { value: 'paused', label: 'Paused' },
  { value: 'complete', label: 'Complete' },
];
const ARCHIVED_OPTIONS = [
  { value: '', label: 'Not archived' },
  { value: 'true', label: 'Archived' },
];

/** The primary metric and, once the experiment has started, how its first test variant is doing. */
function PrimaryMetric({ experiment }: { experiment: Experiment }) {
  const metric = experiment.metrics[0];
  const [result] = useMetricResults(experiment, metric ? [metric] : []);
  if (!metric) return <span className="muted">No metric yet</span>;
  let state = '';
  if (experiment.status === 'draft') state = 'Not started';
  else if (!result || result.isPending) state = '…';
  else if (result.isError) state = isApiError(result.error) && result.error.status === 400 ? 'Not enough data' : errorMessage(result.error);
  else {
    const variant = result.data.variant_results[0];
    state = result.data.baseline.validation_failures.length > 0 || !variant ? 'Not enough data' : `${variant.key}: ${outcomeText(variant)}`;
  }
  return (
    <div className="list-cell">
      <span>{describeMetric(metric)}</span>
      <span className="list-subtitle muted">{state}</span>
    </div>
  );
}

export function ExperimentsListPage() {
  useDocumentTitle('Experiments');
  const list = useListPage(FILTER_KEYS);
  const params: ExperimentListParams = {
    search: list.value('search') || undefined,
    status: list.value('status') || undefined,
    archived: list.value('archived') || undefined,
    offset: list.offset || undefined,
  };
  const experiments = useExperimentList(params);

  const columns: Column<Experiment>[] = [
    {
      key: 'name',
      header: 'Name',
      render: (experiment) => (
        <div className="list-cell">
          <Link href={`/experiments/${experiment.id}`} className="list-title">
            {experiment.name}
          </Link>
          <span className="list-subtitle muted mono">{experiment.feature_flag_key}</span>
        </div>
      ),
    },
    { key: 'status', header: 'Status', render: (experiment) => <ExperimentStateBadge experiment={experiment} /> },
    {
      key: 'variants',
      header: 'Variants',
      wideOnly: true,
      render: (experiment) => (
        <span className="small">{variantsOf(experiment).map((variant) => `${variant.key} ${variant.rollout_percentage}%`).join(' · ')}</span>
      ),
    },
    { key: 'metric', header: 'Primary metric', render: (experiment) => <PrimaryMetric experiment={experiment} /> },
    { key: 'created_by', header: 'Created by', wideOnly: true, render: (experiment) => displayName(experiment.created_by) },
    { key: 'created_at', header: 'Created', wideOnly: true, render: (experiment) => <span className="nowrap">{formatDate(experiment.created_at)}</span> },
  ];

  return (
    <>
      <PageHeader
        title="Experiments"
        description="A/B tests on your feature flags: exposures and goal events come from the events your SDKs already send."
        actions={
          <LinkButton href="/experiments/new" variant="primary">
            New experiment
          </LinkButton>
        }
      />
      <ListToolbar list={list} searchPlaceholder="Search by name">
        <FilterSelect list={list} name="status" label="Status" options={STATUS_OPTIONS} />
        <FilterSelect list={list} name="archived" label="Archived" options={ARCHIVED_OPTIONS} />
      </ListToolbar>
      <ListResults
        list={list}
        query={experiments}
        noun="experiments"
        pageSize={EXPERIMENT_PAGE_SIZE}
        caption="Experiments"
        columns={columns}
        rowKey={(experiment) => experiment.id}
        noMatch="No experiments match these filters."
        emptyState={
          <EmptyState title="No experiments yet" action={<LinkButton href="/experiments/new" variant="primary">Create your first experiment</LinkButton>}>
            An experiment splits people between the variants of a flag and compares a goal between them.
          </EmptyState>
        }
      />
    </>
  );
}
