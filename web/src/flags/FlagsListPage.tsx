import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../api/client.ts';
import { useGateOutcome } from '../approvals/gate-answer.ts';
import { errorMessage } from '../api/errors.ts';
import type { FeatureFlag, Paginated } from '../api/types.ts';
import { displayName, useProject, useProjectPath } from '../shell/session.ts';
import { formatDate, formatRelative } from '../lib/format.ts';
import { useListPage } from '../lib/list-page.ts';
import { Button, LinkButton } from '../ui/Button.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { FilterSelect, ListResults, ListToolbar, TagsFilter } from '../ui/ListPage.tsx';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { Switch } from '../ui/Switch.tsx';
import { useConfirmTurnOff } from './served.tsx';
import type { Column } from '../ui/Table.tsx';
import { useToast } from '../ui/Toast.tsx';
import { FLAG_PAGE_SIZE, flagKeys, flagListParamsFrom, useFlagList } from './api.ts';
import { FlagStatusBadges, FlagTags } from './FlagBadges.tsx';
import { flagTypeLabel, releaseSummary } from './flag-summary.ts';

const STATUS_OPTIONS = [
  { value: '', label: 'Any status' },
  { value: 'true', label: 'Enabled' },
  { value: 'false', label: 'Disabled' },
  { value: 'STALE', label: 'Stale or inactive' },
];
const TYPE_OPTIONS = [
  { value: '', label: 'Any type' },
  { value: 'boolean', label: 'Boolean' },
  { value: 'multivariant', label: 'Multivariate' },
  { value: 'experiment', label: 'Experiment' },
];
const RUNTIME_OPTIONS = [
  { value: '', label: 'Any runtime' },
  { value: 'both', label: 'Client and server' },
  { value: 'client', label: 'Client only' },
  { value: 'server', label: 'Server only' },
];
const EVALUATION_TAG_OPTIONS = [
  { value: '', label: 'Any eval. tags' },
  { value: 'true', label: 'With evaluation tags' },
  { value: 'false', label: 'Without evaluation tags' },
];
const FILTER_KEYS = ['search', 'active', 'type', 'evaluation_runtime', 'tags', 'has_evaluation_tags', 'created_by_id', 'deleted'] as const;
const DELETED_OPTIONS = [
  { value: '', label: 'Live flags' },
  { value: 'true', label: 'Deleted' },
];

/** The inline switch: the list shows the new state at once and goes back if the server refuses. */
function useToggleActive(listKey: readonly unknown[]) {
  const path = useProjectPath();
  const project = useProject();
  const client = useQueryClient();
  const toast = useToast();
  const gateOutcome = useGateOutcome();
  return useMutation({
    mutationFn: ({ flag, active }: { flag: FeatureFlag; active: boolean }) => api.patch<FeatureFlag>(path(`feature_flags/${flag.id}/`), { active }),
    onMutate: async ({ flag, active }) => {
      await client.cancelQueries({ queryKey: listKey });
      const previous = client.getQueryData<Paginated<FeatureFlag>>(listKey);
      if (previous) {
        client.setQueryData<Paginated<FeatureFlag>>(listKey, {
          ...previous,
          results: previous.results.map((item) => (item.id === flag.id ? { ...item, active } : item)),
        });
      }
      return { previous };
    },
    onError: (error, { flag }, context) => {
      if (context?.previous) client.setQueryData(listKey, context.previous);
      const gate = gateOutcome(error);
      if (gate) return toast.show(`"${flag.key}": ${gate.message}`);
      toast.show(`"${flag.key}" could not be changed: ${errorMessage(error)}`, 'error');
    },
    onSuccess: (updated) => toast.show(`"${updated.key}" is now ${updated.active ? 'enabled' : 'disabled'}.`),
    onSettled: () => client.invalidateQueries({ queryKey: flagKeys.all(project.id) }),
  });
}

/** Restores a deleted flag from the "Deleted" list; refused (its key taken meanwhile, say) with the server's words. */
function useRestore() {
  const path = useProjectPath();
  const project = useProject();
  const client = useQueryClient();
  const toast = useToast();
  return useMutation({
    mutationFn: (flag: FeatureFlag) => api.patch<FeatureFlag>(path(`feature_flags/${flag.id}/`), { deleted: false }, { 'if-match': `"${flag.version}"` }),
    onSuccess: (restored) => toast.show(`Restored "${restored.key}".`),
    onError: (error, flag) => toast.show(`"${flag.key}" could not be restored: ${errorMessage(error)}`, 'error'),
    onSettled: () => client.invalidateQueries({ queryKey: flagKeys.all(project.id) }),
  });
}

export function FlagsListPage() {
  useDocumentTitle('Feature flags');
  const project = useProject();
  const list = useListPage(FILTER_KEYS);
  const listParams = flagListParamsFrom(list.params);
  const flags = useFlagList(listParams);
  const toggle = useToggleActive(flagKeys.list(project.id, listParams));
  const turnOff = useConfirmTurnOff();
  const restore = useRestore();

  const columns: Column<FeatureFlag>[] = [
    {
      key: 'key',
      header: 'Key',
      sortKey: 'key',
      render: (flag) => (
        <div className="list-cell">
          <Link href={`/feature_flags/${flag.id}`} className="list-title mono">
            {flag.key}
          </Link>
          {flag.name ? <div className="list-subtitle muted">{flag.name}</div> : null}
          <FlagTags tags={flag.tags} evaluationTags={flag.evaluation_tags} />
        </div>
      ),
    },
    {
      key: 'status',
      header: 'Status',
      render: (flag) => (
        <span className="row">
          <FlagStatusBadges flag={flag} />
        </span>
      ),
    },
    {
      key: 'release',
      header: 'Release',
      wideOnly: true,
      render: (flag) => (
        <div>
          <div>{releaseSummary(flag.filters)}</div>
          <div className="muted small">{flagTypeLabel(flag)}</div>
        </div>
      ),
    },
    { key: 'created_by', header: 'Created by', wideOnly: true, render: (flag) => displayName(flag.created_by) },
    {
      key: 'created_at',
      header: 'Created',
      sortKey: 'created_at',
      wideOnly: true,
      render: (flag) => <span className="nowrap" title={flag.created_at}>{formatDate(flag.created_at)}</span>,
    },
    {
      key: 'last_called_at',
      header: 'Last called',
      sortKey: 'last_called_at',
      wideOnly: true,
      render: (flag) => <span className="nowrap">{formatRelative(flag.last_called_at)}</span>,
    },
    {
      key: 'active',
      header: 'Enabled',
      align: 'right',
      render: (flag) =>
        flag.deleted ? (
          <Button size="sm" disabled={!flag.can_edit} loading={restore.isPending && restore.variables?.id === flag.id} onClick={() => restore.mutate(flag)} aria-label={`Restore ${flag.key}`}>
            Restore
          </Button>
        ) : (
        <Switch
          checked={flag.active}
          label={`${flag.active ? 'Disable' : 'Enable'} ${flag.key}`}
          disabled={!flag.can_edit}
          busy={(toggle.isPending && toggle.variables?.flag.id === flag.id) || turnOff.checking === flag.id}
          onChange={(active) => (active ? toggle.mutate({ flag, active }) : void turnOff.request(flag, () => toggle.mutate({ flag, active })))}
        />
        ),
    },
  ];

  return (
    <>
      <PageHeader
        title="Feature flags"
        description="Roll features out gradually, target who sees them, and serve variants with payloads."
        actions={
          <>
            <LinkButton href="/feature_flags/playground">Playground</LinkButton>
            <LinkButton href="/feature_flags/new" variant="primary">
              New feature flag
            </LinkButton>
          </>
        }
      />
      <ListToolbar list={list} searchPlaceholder="Search by key or name">
        <FilterSelect list={list} name="active" label="Status" options={STATUS_OPTIONS} />
        <FilterSelect list={list} name="type" label="Type" options={TYPE_OPTIONS} />
        <FilterSelect list={list} name="evaluation_runtime" label="Evaluation runtime" options={RUNTIME_OPTIONS} />
        <FilterSelect list={list} name="has_evaluation_tags" label="Evaluation tags" options={EVALUATION_TAG_OPTIONS} />
        <FilterSelect list={list} name="deleted" label="Deleted" options={DELETED_OPTIONS} />
        <TagsFilter list={list} />
      </ListToolbar>
      <ListResults
        list={list}
        query={flags}
        noun="flags"
        pageSize={FLAG_PAGE_SIZE}
        caption="Feature flags"
        columns={columns}
        rowKey={(flag) => flag.id}
        defaultOrder="-created_at"
        noMatch="No flags match these filters."
        emptyState={
          <EmptyState
            title="No feature flags yet"
            action={
              <>
                <LinkButton href="/feature_flags/new" variant="primary">Create your first flag</LinkButton>
                <LinkButton href="/onboarding">Get started: install an SDK</LinkButton>
              </>
            }
          >
            A flag decides, for each person, whether a feature is on and which variant they get.
          </EmptyState>
        }
      />
      {turnOff.dialog}
    </>
  );
}
