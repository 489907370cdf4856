/** The webhook-visible events of change requests, raised in the unit of work that changes the request. */
import { unitRunningOn, type WriteTx } from '../db/unit-of-work.ts';
import { raiseEvent } from '../kernel/raised-events.ts';
import { presentChangeRequest } from './present.ts';
import { findChangeRequest } from './store.ts';

export type ChangeRequestEvent = 'change_request.opened' | 'change_request.approved' | 'change_request.rejected';

export async function raiseChangeRequestEvent(client: WriteTx, type: ChangeRequestEvent, projectId: number, requestId: string, actorId: number): Promise<void> {
  const unit = unitRunningOn(client);
  if (!unit) throw new Error('a change request event must be raised inside a unit of work');
  await raiseEvent(unit, {
    type,
    projectId,
    actorId,
    object: async () => {
      const row = await findChangeRequest(client, projectId, requestId);
      if (!row) return {};
      // Who looks decides only these, which mean nothing to a receiver.
      const { can_approve: _a, can_cancel: _c, is_requester: _r, user_decision: _d, ...object } = presentChangeRequest(row, { userId: 0 });
      return object;
    },
  });
}
