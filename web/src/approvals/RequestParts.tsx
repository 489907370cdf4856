import { Link } from 'wouter';
import { Badge, type BadgeTone } from '../ui/Badge.tsx';
import type { ChangeRequest } from './api.ts';
import { flagKeyOf, STATE_LABELS } from './describe.ts';

const STATE_TONES: Record<string, BadgeTone> = { pending: 'warning', approved: 'info', applied: 'success', rejected: 'danger', expired: 'neutral', failed: 'danger' };

export function StateBadge({ state }: { state: string }) {
  return <Badge tone={STATE_TONES[state] ?? 'neutral'}>{STATE_LABELS[state] ?? state}</Badge>;
}

export function FlagLink({ request }: { request: ChangeRequest }) {
  const key = flagKeyOf(request) ?? `flag ${request.resource_id}`;
  return request.resource_id ? (
    <Link href={`/feature_flags/${request.resource_id}`} className="mono">
      {key}
    </Link>
  ) : (
    <span className="mono">{key}</span>
  );
}
