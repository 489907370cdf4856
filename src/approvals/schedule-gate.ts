/**
 * Scheduled changes × approvals: a schedule whose change a policy covers is bound to a pending
 * change request made in the schedule's transaction (the schedule is still created); approving
 * it lets the change run at its time. Editing the payload gates again (the old request expires);
 * deleting the schedule expires its request.
 */
import type { ReadHandle } from '../db/pool.ts';
import type { WriteTx } from '../db/unit-of-work.ts';
import type { FlagEdit } from '../flags/gate.ts';
import { RawErrorResponse } from '../kernel/errors.ts';
import { openRequest, policyHolding } from './gate.ts';
import { presentChangeRequest } from './present.ts';
import { expireRequest, openChangeRequest } from './store.ts';

const PENDING_MESSAGE =
  'A change for this feature flag is already awaiting approval or its scheduled application. Wait for it to resolve before scheduling another change.';

/** The request the schedule is now bound to (null: none needed); a 409 when another request for the flag and action is open. */
export async function gateSchedule(client: WriteTx, edit: FlagEdit, scheduleId: number, boundRequestId: string | null): Promise<string | null> {
  const held = await policyHolding(client, edit);
  if (held === null) {
    if (boundRequestId !== null) await expireRequest(client, boundRequestId);
    return null;
  }
  const existing = await openChangeRequest(client, edit.projectId, held.action, String(edit.before.id));
  if (existing !== null && existing.id !== boundRequestId) {
    throw new RawErrorResponse(409, {
      code: 'change_request_pending',
      status: 'approval_required',
      detail: PENDING_MESSAGE,
      message: PENDING_MESSAGE,
      resource_type: 'feature_flag',
      resource_id: String(edit.before.id),
      change_request_id: existing.id,
      change_request: presentChangeRequest(existing, { userId: edit.actor.id }),
      required_approvers: {},
    });
  }
  if (boundRequestId !== null) await expireRequest(client, boundRequestId);
  return openRequest(client, edit, held, { scheduled_change_id: scheduleId });
}
