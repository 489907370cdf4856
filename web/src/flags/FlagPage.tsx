import { useState } from 'react';
import { Link } from 'wouter';
import { errorMessage } from '../api/errors.ts';
import type { FeatureFlag } from '../api/types.ts';
import { PagedActivity } from '../activity/PagedActivity.tsx';
import { displayName } from '../shell/session.ts';
import { formatDateTime } from '../lib/format.ts';
import { useUrlParams } from '../lib/url-state.ts';
import { Button, LinkButton } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Card, PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { Switch } from '../ui/Switch.tsx';
import { TabPanel, Tabs } from '../ui/Tabs.tsx';
import { useToast } from '../ui/Toast.tsx';
import { useFlag, useFlagActivity, useUpdateFlag } from './api.ts';
import { FlagStatusBadges } from './FlagBadges.tsx';
import { FlagEvaluate } from './FlagEvaluate.tsx';
import { Playground } from '../playground/Playground.tsx';
import { FlagOverview } from './FlagOverview.tsx';
import { flagTypeLabel } from './flag-summary.ts';
import { FlagEnvironments } from './FlagEnvironments.tsx';
import { FlagUsage } from './FlagUsage.tsx';
import { useFlagRevert } from './FlagRevert.tsx';
import { FlagSchedule } from './schedule/FlagSchedule.tsx';
import { PendingBanner } from '../approvals/PendingBanner.tsx';
import { useGateOutcome } from '../approvals/gate-answer.ts';
import { servedSentence, useConfirmTurnOff, usePersonsServed } from './served.tsx';

const TABS = [
  { id: 'overview', label: 'Overview' },
  { id: 'usage', label: 'Usage' },
  { id: 'environments', label: 'Environments' },
  { id: 'evaluate', label: 'Why this value?' },
  { id: 'playground', label: 'Playground' },
  { id: 'schedule', label: 'Schedule' },
  { id: 'history', label: 'History' },
];

function FlagHistory({ flag }: { flag: FeatureFlag }) {
  const [page, setPage] = useState(1);
  const revert = useFlagRevert(flag);
  return (
    <>
      <PagedActivity activity={useFlagActivity(flag.id, page)} page={page} onPage={setPage} actions={revert.button} />
      {revert.dialog}
    </>
  );
}

function DeleteOrRestore({ flag }: { flag: FeatureFlag }) {
  const [confirming, setConfirming] = useState(false);
  const update = useUpdateFlag(flag.id);
  const toast = useToast();
  const served = usePersonsServed(flag.id, confirming);
  if (flag.deleted) {
    return (
      <Button
        loading={update.isPending}
        onClick={() =>
          update.mutate(
            { changes: { deleted: false } },
            { onSuccess: () => toast.show(`Restored "${flag.key}".`), onError: (error) => toast.show(`Not restored: ${errorMessage(error)}`, 'error') },
          )
        }
      >
        Restore
      </Button>
    );
  }
  return (
    <>
      <Button variant="ghost" onClick={() => setConfirming(true)}>
        Delete
      </Button>
      <Dialog
        open={confirming}
        onClose={() => setConfirming(false)}
        title={`Delete ${flag.key}?`}
        footer={
          <>
            <Button onClick={() => setConfirming(false)}>Cancel</Button>
            <Button
              variant="danger"
              loading={update.isPending}
              onClick={() =>
                update.mutate(
                  { changes: { deleted: true } },
                  {
                    onSuccess: () => {
                      setConfirming(false);
                      toast.show(`Deleted "${flag.key}". You can restore it from this page.`);
                    },
                  },
                )
              }
            >
              Delete flag
            </Button>
          </>
        }
      >
        {served !== null && served > 0 ? (
          <p>
            <strong>{servedSentence(flag.key, served)}</strong>
          </p>
        ) : null}
        <p>
          SDKs stop receiving <code>{flag.key}</code> at once and treat it as off. The flag is kept: you can restore it, and its key is free for a new flag meanwhile.
        </p>
        {update.isError ? <Notice tone="error">{errorMessage(update.error)}</Notice> : null}
      </Dialog>
    </>
  );
}

export function FlagPage({ flagId }: { flagId: number }) {
  const flag = useFlag(flagId);
  const update = useUpdateFlag(flagId);
  const toast = useToast();
  const turnOff = useConfirmTurnOff();
  const gateOutcome = useGateOutcome();
  const [params, setParams] = useUrlParams();
  const tab = TABS.some((item) => item.id === params.get('tab')) ? params.get('tab')! : 'overview';
  useDocumentTitle(flag.data?.key ?? 'Feature flag');

  if (flag.isPending) return <Spinner label="Loading the flag…" />;
  if (flag.isError) return <ErrorNotice error={flag.error} onRetry={() => void flag.refetch()} />;
  const data = flag.data;
  return (
    <>
      <nav className="breadcrumbs" aria-label="Breadcrumbs">
        <Link href="/feature_flags">Feature flags</Link> <span aria-hidden="true">/</span> <span className="mono">{data.key}</span>
      </nav>
      <PageHeader
        title={<span className="mono">{data.key}</span>}
        description={data.name || undefined}
        meta={
          <>
            <FlagStatusBadges flag={data} />
            <span className="muted small">
              {flagTypeLabel(data)} · created by {displayName(data.created_by)} on {formatDateTime(data.created_at)}
            </span>
          </>
        }
        actions={
          <>
            {!data.deleted ? (
              <Switch
                checked={data.active}
                showLabel
                label={data.active ? 'Enabled' : 'Disabled'}
                busy={update.isPending || turnOff.checking === data.id}
                disabled={!data.can_edit}
                onChange={(active) => {
                  const apply = () =>
                    update.mutate(
                      { changes: { active }, version: data.version },
                      {
                        onSuccess: (saved) => toast.show(`"${saved.key}" is now ${saved.active ? 'enabled' : 'disabled'}.`),
                        onError: (error) => {
                          const gate = gateOutcome(error);
                          if (gate) return toast.show(gate.message);
                          toast.show(`Not changed: ${errorMessage(error)}`, 'error');
                        },
                      },
                    );
                  if (active) apply();
                  else void turnOff.request(data, apply);
                }}
              />
            ) : null}
            <DeleteOrRestore flag={data} />
            {!data.deleted ? (
              <LinkButton href={`/feature_flags/${data.id}/edit`} variant="primary">
                Edit
              </LinkButton>
            ) : null}
          </>
        }
      />
      <PendingBanner flagId={data.id} />
      {data.deleted ? <Notice tone="warning">This flag is deleted: SDKs do not receive it. Restore it to use it again.</Notice> : null}
      <Tabs tabs={TABS} selected={tab} onSelect={(id) => setParams({ tab: id === 'overview' ? null : id })} label="Flag sections" idPrefix="flag" />
      <TabPanel idPrefix="flag" id={tab}>
        {tab === 'overview' ? <FlagOverview flag={data} /> : null}
        {tab === 'usage' ? <FlagUsage flag={data} /> : null}
        {tab === 'environments' ? <FlagEnvironments flag={data} /> : null}
        {tab === 'evaluate' ? <FlagEvaluate flag={data} /> : null}
        {tab === 'playground' ? (
          <Card title="Try made-up properties">
            <Playground flagKey={data.key} />
          </Card>
        ) : null}
        {tab === 'schedule' ? <FlagSchedule flag={data} /> : null}
        {tab === 'history' ? <FlagHistory flag={data} /> : null}
      </TabPanel>
      {turnOff.dialog}
    </>
  );
}
