/**
 * Approve, reject and cancel a change request, each in one unit of work with the request locked.
 * The approval that reaches the quorum applies the change through the flags writer, as the
 * requester, after checking that the flag still has the version the request was made against: a
 * flag changed since fails the request, it is never overwritten.
 */
import { onSavepoint } from '../db/savepoint.ts';
import { userSummaryById } from '../accounts/users/user-by-id.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { findFlag } from '../flags/store.ts';
import { updateFlagById } from '../flags/update.ts';
import type { FlagWriteDeps } from '../flags/write-deps.ts';
import type { FlagWriteBody } from '../flags/schemas.ts';
import { orNotFound, permissionDenied, RawErrorResponse } from '../kernel/errors.ts';
import { raiseChangeRequestEvent } from './events.ts';
import { canCancel, inApproverSet, presentChangeRequest } from './present.ts';
import { expireOverdue, findChangeRequest, insertVote, setState, type ChangeRequestRow } from './store.ts';

export interface Decision {
  projectId: number;
  requestId: string;
  userId: number;
  reason: string | null;
}

const badRequest = (error: string) => new RawErrorResponse(400, { error });

class PreconditionFailed extends Error {}

function checkCanVote(row: ChangeRequestRow, userId: number): void {
  if (row.state !== 'pending') throw permissionDenied('Only pending change requests can be approved');
  if (row.created_by_id === userId && !row.policy_snapshot.allow_self_approve) throw permissionDenied('You cannot approve your own change request');
  if (!inApproverSet(row, userId)) throw permissionDenied('You are not in the approver set for this change request');
}

async function locked(unit: UnitOfWork, decision: Decision): Promise<ChangeRequestRow> {
  await expireOverdue(unit.client, decision.projectId);
  return orNotFound(await findChangeRequest(unit.client, decision.projectId, decision.requestId, true));
}

async function applyRequest(deps: FlagWriteDeps, unit: UnitOfWork, row: ChangeRequestRow): Promise<{ resource_id: string; resource_version: number }> {
  const intent = row.intent as { flag_id: number; full_request_data: FlagWriteBody; preconditions: { version: number }; http_method?: 'PATCH' | 'PUT' };
  const flag = await findFlag(unit.client, row.project_id, intent.flag_id, true);
  if (flag === null) throw new PreconditionFailed('Feature flag no longer exists');
  if (flag.version !== intent.preconditions.version) {
    throw new PreconditionFailed(`Flag version mismatch: expected ${intent.preconditions.version}, got ${flag.version}`);
  }
  const actor = row.created_by_id === null ? null : await userSummaryById(unit.client, row.created_by_id);
  if (actor === null) throw new PreconditionFailed('The requester no longer exists');
  let version = flag.version;
  const error = await onSavepoint(unit, async (inner) => {
    const written = await updateFlagById(deps, {
      projectId: row.project_id,
      flagId: flag.id,
      viewer: { userId: actor.id, organizationLevel: null },
      actor,
      body: intent.full_request_data,
      ifMatch: intent.preconditions.version,
      within: inner,
      trigger: { job_type: 'change_request', job_id: row.id, payload: { change_request_id: row.id } },
    });
    version = written.version;
  });
  if (error !== null) throw new Error(`Validation failed: ${error instanceof Error ? error.message : String(error)}`);
  return { resource_id: String(flag.id), resource_version: version };
}

export async function approve(deps: FlagWriteDeps, decision: Decision) {
  return deps.units.run(async (unit) => {
    const row = await locked(unit, decision);
    checkCanVote(row, decision.userId);
    if (!(await insertVote(unit.client, row.id, decision.userId, 'approved', decision.reason ?? ''))) throw badRequest('You have already voted on this change request.');
    const approvals = row.approvals.filter((v) => v.decision === 'approved').length + 1;
    const quorum = row.policy_snapshot.quorum;
    const reader = { userId: decision.userId };
    if (approvals < quorum) {
      const after = (await findChangeRequest(unit.client, decision.projectId, row.id))!;
      return { status: 'approved', message: `Approval recorded. ${approvals}/${quorum} approvals received.`, change_request: presentChangeRequest(after, reader) };
    }
    if (typeof row.intent.scheduled_change_id === 'number') {
      // Bound to a scheduled change: it is made at its time, not now.
      await setState(unit.client, row.id, 'approved');
      await raiseChangeRequestEvent(unit.client, 'change_request.approved', decision.projectId, row.id, decision.userId);
      const after = (await findChangeRequest(unit.client, decision.projectId, row.id))!;
      return { status: 'approved', message: 'Quorum reached. Change approved and will be applied at its scheduled time.', change_request: presentChangeRequest(after, reader) };
    }
    try {
      const result = await applyRequest(deps, unit, row);
      await setState(unit.client, row.id, 'applied', { appliedById: row.created_by_id, resultData: result });
      await raiseChangeRequestEvent(unit.client, 'change_request.approved', decision.projectId, row.id, decision.userId);
      const after = (await findChangeRequest(unit.client, decision.projectId, row.id))!;
      return { status: 'applied', message: 'Quorum reached. Change applied successfully.', change_request: presentChangeRequest(after, reader), result };
    } catch (error) {
      const text = error instanceof PreconditionFailed ? `Precondition failed: ${error.message}` : error instanceof Error ? error.message : String(error);
      await setState(unit.client, row.id, 'failed', { applyError: text });
      await raiseChangeRequestEvent(unit.client, 'change_request.approved', decision.projectId, row.id, decision.userId);
      const after = (await findChangeRequest(unit.client, decision.projectId, row.id))!;
      return { status: 'failed', message: `Quorum reached but application failed: ${text}`, change_request: presentChangeRequest(after, reader) };
    }
  });
}

export async function reject(deps: FlagWriteDeps, decision: Decision) {
  if (decision.reason === null || decision.reason.trim() === '') throw badRequest('A reason is required for rejection.');
  return deps.units.run(async (unit) => {
    const row = await locked(unit, decision);
    checkCanVote(row, decision.userId);
    if (!(await insertVote(unit.client, row.id, decision.userId, 'rejected', decision.reason!))) throw badRequest('You have already voted on this change request.');
    await setState(unit.client, row.id, 'rejected');
    await raiseChangeRequestEvent(unit.client, 'change_request.rejected', decision.projectId, row.id, decision.userId);
    const after = (await findChangeRequest(unit.client, decision.projectId, row.id))!;
    return { status: 'rejected', message: 'Change request rejected.', change_request: presentChangeRequest(after, { userId: decision.userId }) };
  });
}

export async function cancel(deps: FlagWriteDeps, decision: Decision) {
  return deps.units.run(async (unit) => {
    const row = await locked(unit, decision);
    if (!canCancel(row, decision.userId)) throw permissionDenied('You cannot cancel this change request');
    await insertVote(unit.client, row.id, decision.userId, 'rejected', decision.reason ?? 'Canceled by requester');
    await setState(unit.client, row.id, 'rejected');
    const after = (await findChangeRequest(unit.client, decision.projectId, row.id))!;
    return { status: 'canceled', message: 'Change request canceled.', change_request: presentChangeRequest(after, { userId: decision.userId }) };
  });
}
