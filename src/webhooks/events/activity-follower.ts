/**
 * Writes the outbox rows of a flag, survey or cohort change beside its activity entry, in its
 * transaction: one query finds the endpoints that take the event; only then is the object read
 * and the message written (one row per endpoint).
 */
import type { ActivityFollower, NewActivity } from '../../accounts/activity/store.ts';
import { isoUtc } from '../../kernel/time.ts';
import { enqueueMessage } from '../outbox.ts';
import { messageContext } from './context.ts';
import { activityEventsFor } from './registry.ts';
import { endpointsTaking } from './subscriptions.ts';

/** The changed fields as before → after (an update's `changes`). */
function changesOf(entry: NewActivity): { field: string; before: unknown; after: unknown }[] {
  return (entry.detail.changes ?? []).map((change) => ({ field: change.field, before: change.before, after: change.after }));
}

export function webhookActivityFollower(onEnqueued: () => void): ActivityFollower {
  return async (unit, entry) => {
    const events = activityEventsFor(entry);
    if (events.length === 0) return;
    const db = unit.client;
    for (const event of events) {
      const endpoints = await endpointsTaking(unit, entry.projectId, event.type);
      if (endpoints.length === 0) continue;
      const object = await event.object(db, entry.projectId, entry.itemId);
      const context = await messageContext(db, entry.projectId, entry.userId);
      const data: Record<string, unknown> = { ...context, object };
      if (entry.activity === 'updated') data.changes = changesOf(entry);
      await enqueueMessage(
        db,
        entry.projectId,
        endpoints.map((endpoint) => endpoint.id),
        { type: event.type, timestamp: isoUtc(new Date()), data },
      );
      unit.afterCommit(onEnqueued);
    }
  };
}
