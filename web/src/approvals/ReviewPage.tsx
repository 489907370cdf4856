import { useState } from 'react';
import { Link } from 'wouter';
import { errorMessage } from '../api/errors.ts';
import { ValueDiff } from '../activity/ValueDiff.tsx';
import { formatDateTime, formatRelative } from '../lib/format.ts';
import { displayName, useMe } from '../shell/session.ts';
import { Button } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Field, TextArea } from '../ui/Field.tsx';
import { Card, PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { RestrictedButton } from '../ui/Restricted.tsx';
import { Table, type Column } from '../ui/Table.tsx';
import { useToast } from '../ui/Toast.tsx';
import { OPEN_STATES, PAST_STATES, useChangeRequests, useDecide, type ChangeRequest } from './api.ts';
import { changedFields, outcomeReason, requestTitle } from './describe.ts';
import { FlagLink, StateBadge } from './RequestParts.tsx';
import { cancelRefusal, reviewRefusal } from './review-rights.ts';
import './approvals.css';

const POLL_MS = 10_000;

function quorumOf(request: ChangeRequest): number {
  const quorum = request.policy_snapshot.quorum;
  return typeof quorum === 'number' ? quorum : 1;
}

/** Reject or cancel, each with a reason (required to reject). */
function ReasonDialog({ request, kind, open, onClose }: { request: ChangeRequest; kind: 'reject' | 'cancel'; open: boolean; onClose: () => void }) {
  const [reason, setReason] = useState('');
  const decide = useDecide();
  const toast = useToast();
  const rejecting = kind === 'reject';
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={rejecting ? 'Reject this change?' : 'Cancel your change request?'}
      footer={
        <>
          <Button onClick={onClose}>{rejecting ? 'Back' : 'Keep it'}</Button>
          <Button
            variant="danger"
            loading={decide.isPending}
            disabled={rejecting && reason.trim() === ''}
            onClick={() =>
              decide.mutate(
                { id: request.id, kind, reason: reason.trim() || undefined },
                {
                  onSuccess: (answer) => {
                    toast.show(answer.message);
                    onClose();
                  },
                },
              )
            }
          >
            {rejecting ? 'Reject' : 'Cancel the request'}
          </Button>
        </>
      }
    >
      <p>
        <strong>{requestTitle(request)}</strong> will not be applied.{' '}
        {rejecting ? `${displayName(request.created_by)} sees your reason.` : 'The flag stays as it is.'}
      </p>
      <Field label={rejecting ? 'Reason' : 'Reason (optional)'}>
        {(control) => <TextArea {...control} rows={3} maxLength={1000} value={reason} onChange={(event) => setReason(event.target.value)} />}
      </Field>
      {decide.isError ? <Notice tone="error">{errorMessage(decide.error)}</Notice> : null}
    </Dialog>
  );
}

function Votes({ request }: { request: ChangeRequest }) {
  if (request.approvals.length === 0) return null;
  return (
    <ul className="review-votes">
      {request.approvals.map((vote) => (
        <li key={vote.id}>
          <strong>{displayName(vote.created_by)}</strong> {vote.decision === 'approved' ? 'approved' : 'rejected'} {formatRelative(vote.created_at)}
          {vote.reason ? <span className="muted">: “{vote.reason}”</span> : null}
        </li>
      ))}
    </ul>
  );
}

function OpenRequest({ request }: { request: ChangeRequest }) {
  const me = useMe();
  const decide = useDecide();
  const toast = useToast();
  const [asking, setAsking] = useState<'reject' | 'cancel' | null>(null);
  const review = reviewRefusal(request, me.id);
  const approvals = request.approvals.filter((vote) => vote.decision === 'approved').length;
  return (
    <article className="card review-request" id={`change-request-${request.id}`} aria-label={requestTitle(request)}>
      <div className="card-header">
        <h2 className="card-title">{requestTitle(request)}</h2>
        <StateBadge state={request.state} />
      </div>
      <div className="card-body">
        <p className="review-meta">
          <FlagLink request={request} /> · asked by <strong>{displayName(request.created_by)}</strong>{' '}
          <span title={formatDateTime(request.created_at)}>{formatRelative(request.created_at)}</span> · {approvals} of {quorumOf(request)} approval
          {quorumOf(request) === 1 ? '' : 's'} · expires {formatRelative(request.expires_at)}
        </p>
        {request.validation_status === 'stale' ? <Notice tone="warning">The flag has changed since this was asked: approving it will fail.</Notice> : null}
        <div className="review-diff">
          {changedFields(request).map((change) => (
            <ValueDiff key={change.field} label={change.field} before={change.before} after={change.after} />
          ))}
        </div>
        <Votes request={request} />
        <div className="row review-actions">
          <RestrictedButton
            variant="primary"
            reason={review}
            loading={decide.isPending}
            onClick={() =>
              decide.mutate(
                { id: request.id, kind: 'approve' },
                { onSuccess: (answer) => toast.show(answer.message), onError: (error) => toast.show(errorMessage(error), 'error') },
              )
            }
          >
            Approve
          </RestrictedButton>
          <RestrictedButton reason={review} onClick={() => setAsking('reject')}>
            Reject
          </RestrictedButton>
          {request.is_requester ? (
            <RestrictedButton variant="ghost" reason={cancelRefusal(request)} onClick={() => setAsking('cancel')}>
              Cancel request
            </RestrictedButton>
          ) : null}
        </div>
      </div>
      {asking ? <ReasonDialog request={request} kind={asking} open onClose={() => setAsking(null)} /> : null}
    </article>
  );
}

function PastDecisions() {
  const past = useChangeRequests({ state: PAST_STATES, limit: 50 }, { refetchInterval: POLL_MS });
  const columns: Column<ChangeRequest>[] = [
    {
      key: 'change',
      header: 'Change',
      render: (request) => (
        <div className="list-cell">
          <span>{requestTitle(request)}</span>
          <span className="small">
            <FlagLink request={request} />
          </span>
        </div>
      ),
    },
    { key: 'by', header: 'Asked by', wideOnly: true, render: (request) => displayName(request.created_by) },
    {
      key: 'outcome',
      header: 'Outcome',
      render: (request) => {
        const reason = outcomeReason(request);
        const decider = request.approvals.at(-1)?.created_by;
        return (
          <div className="list-cell">
            <span>
              <StateBadge state={request.state} />
            </span>
            {decider && request.state !== 'expired' ? <span className="muted small">by {displayName(decider)}</span> : null}
            {reason ? <span className="small review-reason">“{reason}”</span> : null}
          </div>
        );
      },
    },
    { key: 'when', header: 'Decided', wideOnly: true, render: (request) => <span title={formatDateTime(request.updated_at)}>{formatRelative(request.updated_at)}</span> },
  ];
  if (past.isPending) return <Spinner label="Loading past decisions…" />;
  if (past.isError) return <ErrorNotice error={past.error} onRetry={() => void past.refetch()} />;
  return <Table caption="Past decisions" columns={columns} rows={past.data.results} rowKey={(request) => request.id} empty="No change request has been decided yet." />;
}

/** Changes an approval policy holds until enough members approve them, and what became of earlier ones. */
export function ReviewPage() {
  useDocumentTitle('Changes awaiting review');
  const open = useChangeRequests({ state: OPEN_STATES, limit: 100 }, { refetchInterval: POLL_MS });
  return (
    <>
      <PageHeader
        title="Changes awaiting review"
        description={
          <>
            Changes to flags that an approval policy holds until enough members approve them. Policies are in <Link href="/settings/approvals">Settings → Approvals</Link>.
          </>
        }
      />
      <div className="stack">
        {open.isPending ? (
          <Spinner label="Loading change requests…" />
        ) : open.isError ? (
          <ErrorNotice error={open.error} onRetry={() => void open.refetch()} />
        ) : open.data.results.length === 0 ? (
          <EmptyState title="Nothing awaits review">When an approval policy holds a change, it is listed here for the approvers.</EmptyState>
        ) : (
          open.data.results.map((request) => <OpenRequest key={request.id} request={request} />)
        )}
        <Card title="Past decisions">
          <PastDecisions />
        </Card>
      </div>
    </>
  );
}
