/**
 * Events an area raises inside a unit of work for what has no activity entry of its own (a
 * scheduled change applied or failed, a change request opened, approved or rejected). Followers
 * (the webhooks outbox) run in the same transaction, so the event commits or rolls back with its
 * change. An area raises; it neither knows nor imports who follows.
 */
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { ExtensionPoint } from './extensions.ts';

export interface RaisedEvent {
  /** `scheduled_change.applied`, `change_request.opened`… */
  type: string;
  projectId: number;
  /** Who made it happen; null for the system. */
  actorId: number | null;
  /** The object as the API serves it; built only when a follower wants it. */
  object: () => Record<string, unknown> | Promise<Record<string, unknown>>;
}

export type RaisedEventFollower = (unit: UnitOfWork, event: RaisedEvent) => Promise<void>;

export const RAISED_EVENT_FOLLOWERS = new ExtensionPoint<RaisedEventFollower>('raised event followers');

export async function raiseEvent(unit: UnitOfWork, event: RaisedEvent): Promise<void> {
  for (const follower of unit.contributions(RAISED_EVENT_FOLLOWERS)) await follower(unit, event);
}
