/** Writes the outbox rows of an event an area raised (kernel/raised-events.ts), in its unit of work. */
import { isoUtc } from '../../kernel/time.ts';
import type { RaisedEventFollower } from '../../kernel/raised-events.ts';
import { enqueueWithContext } from '../outbox.ts';
import { isEmittedType } from './registry.ts';
import { endpointsTaking } from './subscriptions.ts';

export function webhookRaisedEventFollower(onEnqueued: () => void): RaisedEventFollower {
  return async (unit, event) => {
    if (!isEmittedType(event.type)) throw new Error(`${event.type} is not a registered webhook event type`);
    const endpoints = await endpointsTaking(unit, event.projectId, event.type);
    if (endpoints.length === 0) return;
    const object = await event.object();
    await enqueueWithContext(
      unit.client,
      event.projectId,
      endpoints.map((endpoint) => endpoint.id),
      { type: event.type, timestamp: isoUtc(new Date()), actorId: event.actorId, data: { object } },
    );
    unit.afterCommit(onEnqueued);
  };
}
