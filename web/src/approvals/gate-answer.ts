/**
 * The approval gate's answers to a flag edit (409 `approval_required` or `change_request_pending`):
 * not failures, but the change sent for review (or one already waiting for it).
 */
import { useQueryClient } from '@tanstack/react-query';
import { ApiRequestError } from '../api/errors.ts';
import { useProject } from '../shell/session.ts';

export type GateOutcome = { kind: 'sent'; message: string } | { kind: 'already-waiting'; message: string };

export function gateOutcome(error: unknown): GateOutcome | null {
  if (!(error instanceof ApiRequestError) || error.status !== 409) return null;
  if (error.code === 'approval_required') return { kind: 'sent', message: `Sent for review: ${error.message}` };
  if (error.code === 'change_request_pending') return { kind: 'already-waiting', message: 'Not changed: a change of this kind to the flag is already awaiting review.' };
  return null;
}

/** The gate's outcome of a failed flag write (null for a real failure); the flag's open requests are read again. */
export function useGateOutcome(): (error: unknown) => GateOutcome | null {
  const project = useProject();
  const client = useQueryClient();
  return (error) => {
    const outcome = gateOutcome(error);
    if (outcome) void client.invalidateQueries({ queryKey: ['change-requests', project.id] });
    return outcome;
  };
}
