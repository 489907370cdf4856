import { Link } from 'wouter';
import { formatRelative } from '../lib/format.ts';
import { displayName } from '../shell/session.ts';
import { Notice } from '../ui/Feedback.tsx';
import { useOpenRequestsForFlag } from './api.ts';
import { requestTitle } from './describe.ts';
import './approvals.css';

/** On a flag's page: the changes to it that wait for review, who asked, and where to review them. */
export function PendingBanner({ flagId }: { flagId: number }) {
  const open = useOpenRequestsForFlag(flagId);
  const requests = open.data?.results ?? [];
  if (requests.length === 0) return null;
  return (
    <>
      {requests.map((request) => (
        <Notice key={request.id} tone="warning">
          <span className="pending-banner">
            <strong>{request.state === 'approved' ? 'Approved, waiting for its time:' : 'Awaiting review:'}</strong>
            <span>
              {requestTitle(request)}, asked by {displayName(request.created_by)} {formatRelative(request.created_at)}.
            </span>
            <Link href={`/approvals#change-request-${request.id}`}>Review the change</Link>
          </span>
        </Notice>
      ))}
    </>
  );
}
