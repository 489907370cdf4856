/**
 * The endpoints that take an event type, asked once per transaction: a unit of work writing many
 * changes (a batch of scheduled changes) pays one query per project and type, not one per change.
 * What the transaction's first look found stands for its later changes (an endpoint created
 * meanwhile by another transaction takes the events of changes that commit after it).
 */
import { unitRunningOn, type UnitOfWork } from '../../db/unit-of-work.ts';
import { subscribedEndpoints } from '../store.ts';

const seenInUnit = new WeakMap<UnitOfWork, Map<string, Promise<{ id: string }[]>>>();

export function endpointsTaking(unit: UnitOfWork, projectId: number, eventType: string): Promise<{ id: string }[]> {
  // Keyed by the transaction's own unit (a savepoint's unit is a new object each time).
  const root = unitRunningOn(unit.client) ?? unit;
  let seen = seenInUnit.get(root);
  if (!seen) seenInUnit.set(root, (seen = new Map()));
  const key = `${projectId} ${eventType}`;
  let endpoints = seen.get(key);
  if (!endpoints) seen.set(key, (endpoints = subscribedEndpoints(unit.client, projectId, eventType)));
  return endpoints;
}
