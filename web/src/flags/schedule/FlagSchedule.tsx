import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api/errors.ts';
import type { FeatureFlag } from '../../api/types.ts';
import { formatRelative } from '../../lib/format.ts';
import { formatInZone, knownZone } from '../../lib/zoned-time.ts';
import { displayName, useProject } from '../../shell/session.ts';
import { Badge } from '../../ui/Badge.tsx';
import { Button } from '../../ui/Button.tsx';
import { Dialog } from '../../ui/Dialog.tsx';
import { ErrorNotice, Notice, Spinner } from '../../ui/Feedback.tsx';
import { Card } from '../../ui/Page.tsx';
import { RestrictedButton } from '../../ui/Restricted.tsx';
import { Table, type Column } from '../../ui/Table.tsx';
import { useToast } from '../../ui/Toast.tsx';
import { flagKeys } from '../api.ts';
import { useDeleteSchedule, useFlagSchedules, useSetRecurring, type ScheduledChange } from './api.ts';
import { describePayload, describeRecurrence, hasRecurrence, isPaused } from './schedule-form.ts';
import { ScheduleChangeForm } from './ScheduleChangeForm.tsx';
import './schedule.css';

export const CANNOT_EDIT = "You can't edit this flag, so you can't schedule changes to it.";

/** When the executor has run one of the flag's changes, the flag shown on the page is out of date. */
function useFlagFollowsRuns(flagId: number, rows: ScheduledChange[] | undefined) {
  const project = useProject();
  const client = useQueryClient();
  const runs = (rows ?? []).map((row) => `${row.id}:${row.executed_at ?? ''}:${row.last_executed_at ?? ''}`).join(',');
  const previous = useRef<string | null>(null);
  useEffect(() => {
    if (rows === undefined) return;
    if (previous.current !== null && previous.current !== runs) void client.invalidateQueries({ queryKey: flagKeys.one(project.id, flagId) });
    previous.current = runs;
  }, [runs, rows, client, project.id, flagId]);
}

function CancelSchedule({ flagId, schedule, refusal, timeZone }: { flagId: number; schedule: ScheduledChange; refusal: string | null; timeZone: string }) {
  const [confirming, setConfirming] = useState(false);
  const remove = useDeleteSchedule(flagId);
  const toast = useToast();
  const what = describePayload(schedule.payload);
  return (
    <>
      <RestrictedButton size="sm" variant="ghost" reason={refusal} onClick={() => setConfirming(true)} aria-label={`Cancel: ${what}`}>
        Cancel
      </RestrictedButton>
      <Dialog
        open={confirming}
        onClose={() => setConfirming(false)}
        title="Cancel this scheduled change?"
        footer={
          <>
            <Button onClick={() => setConfirming(false)}>Keep it</Button>
            <Button
              variant="danger"
              loading={remove.isPending}
              onClick={() =>
                remove.mutate(schedule.id, {
                  onSuccess: () => {
                    setConfirming(false);
                    toast.show('Scheduled change canceled.');
                  },
                })
              }
            >
              Cancel the change
            </Button>
          </>
        }
      >
        <p>
          <strong>{what}</strong>, due {formatInZone(schedule.scheduled_at, timeZone)}
          {hasRecurrence(schedule) ? ` and repeating (${describeRecurrence(schedule).toLowerCase()})` : ''}, will not happen. A change request waiting on it
          expires.
        </p>
        {remove.isError ? <Notice tone="error">{errorMessage(remove.error)}</Notice> : null}
      </Dialog>
    </>
  );
}

function PauseOrResume({ flagId, schedule, refusal }: { flagId: number; schedule: ScheduledChange; refusal: string | null }) {
  const setRecurring = useSetRecurring(flagId);
  const toast = useToast();
  const paused = isPaused(schedule);
  return (
    <RestrictedButton
      size="sm"
      variant="ghost"
      reason={refusal}
      loading={setRecurring.isPending}
      onClick={() =>
        setRecurring.mutate(
          { id: schedule.id, recurring: paused },
          {
            onSuccess: () => toast.show(paused ? 'Resumed: it runs at its next time.' : 'Paused: it will not run until resumed.'),
            onError: (error) => toast.show(errorMessage(error), 'error'),
          },
        )
      }
    >
      {paused ? 'Resume' : 'Pause'}
    </RestrictedButton>
  );
}

function Outcome({ schedule }: { schedule: ScheduledChange }) {
  if (schedule.failure_reason) {
    return (
      <div className="list-cell">
        <Badge tone="danger">Failed</Badge>
        <div className="small schedule-failure">{schedule.failure_reason}</div>
      </div>
    );
  }
  return <Badge tone="success">{schedule.is_recurring || hasRecurrence(schedule) ? 'Finished' : 'Applied'}</Badge>;
}

export function FlagSchedule({ flag }: { flag: FeatureFlag }) {
  const project = useProject();
  const timeZone = knownZone(project.timezone);
  const schedules = useFlagSchedules(flag.id);
  useFlagFollowsRuns(flag.id, schedules.data?.results);
  const refusal = flag.can_edit ? null : CANNOT_EDIT;

  const rows = schedules.data?.results ?? [];
  const upcoming = rows.filter((row) => row.executed_at === null).sort((a, b) => a.scheduled_at.localeCompare(b.scheduled_at));
  const past = rows.filter((row) => row.executed_at !== null).sort((a, b) => (b.executed_at ?? '').localeCompare(a.executed_at ?? ''));

  const upcomingColumns: Column<ScheduledChange>[] = [
    {
      key: 'when',
      header: 'When',
      render: (row) => (
        <div className="list-cell">
          <span className="nowrap">{formatInZone(row.scheduled_at, timeZone)}</span>
          <span className="muted small">
            {describeRecurrence(row)} · {isPaused(row) ? <Badge tone="warning">Paused</Badge> : formatRelative(row.scheduled_at)}
          </span>
          {row.end_date ? <span className="muted small">until {formatInZone(row.end_date, timeZone)}</span> : null}
          {row.last_executed_at ? <span className="muted small">last ran {formatRelative(row.last_executed_at)}</span> : null}
        </div>
      ),
    },
    {
      key: 'change',
      header: 'Change',
      render: (row) => (
        <div className="list-cell">
          <span>{describePayload(row.payload)}</span>
          {row.failure_reason ? <span className="small schedule-failure">Last attempt: {row.failure_reason}</span> : null}
        </div>
      ),
    },
    { key: 'by', header: 'Scheduled by', wideOnly: true, render: (row) => displayName(row.created_by) },
    {
      key: 'actions',
      header: <span className="visually-hidden">Actions</span>,
      align: 'right',
      render: (row) => (
        <div className="row schedule-actions">
          {hasRecurrence(row) ? <PauseOrResume flagId={flag.id} schedule={row} refusal={refusal} /> : null}
          <CancelSchedule flagId={flag.id} schedule={row} refusal={refusal} timeZone={timeZone} />
        </div>
      ),
    },
  ];
  const pastColumns: Column<ScheduledChange>[] = [
    { key: 'ran', header: 'Ran', render: (row) => <span className="nowrap">{formatInZone(row.executed_at, timeZone)}</span> },
    {
      key: 'change',
      header: 'Change',
      render: (row) => (
        <div className="list-cell">
          <span>{describePayload(row.payload)}</span>
          <span className="muted small">
            {describeRecurrence(row)}, due {formatInZone(row.scheduled_at, timeZone)}
          </span>
        </div>
      ),
    },
    { key: 'outcome', header: 'Outcome', render: (row) => <Outcome schedule={row} /> },
    { key: 'by', header: 'Scheduled by', wideOnly: true, render: (row) => displayName(row.created_by) },
  ];

  return (
    <div className="stack">
      <Card title="Schedule a change">
        {flag.deleted ? (
          <Notice tone="warning">This flag is deleted: restore it to schedule changes.</Notice>
        ) : (
          <ScheduleChangeForm flag={flag} timeZone={timeZone} refusal={refusal} />
        )}
      </Card>
      {schedules.isPending ? (
        <Spinner label="Loading scheduled changes…" />
      ) : schedules.isError ? (
        <ErrorNotice error={schedules.error} onRetry={() => void schedules.refetch()} />
      ) : (
        <>
          <Card title="Upcoming">
            <Table caption="Upcoming scheduled changes" columns={upcomingColumns} rows={upcoming} rowKey={(row) => row.id} empty="Nothing is scheduled for this flag." />
          </Card>
          <Card title="Past runs">
            <Table caption="Past scheduled changes" columns={pastColumns} rows={past} rowKey={(row) => row.id} empty="No scheduled change has run yet." />
          </Card>
        </>
      )}
    </div>
  );
}
