/**
 * Writes the outbox rows of a flag, survey, cohort or experiment change beside its activity entry,
 * in its transaction: one query finds the endpoints that take the event (once per transaction and
 * type); only then is the object taken (from the writer when it holds it, else read) and the
 * message written, one row per endpoint, in one statement.
 */
import type { ActivityFollower, NewActivity } from '../../accounts/activity/store.ts';
import { isoUtc } from '../../kernel/time.ts';
import { enqueueWithContext } from '../outbox.ts';
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
      const object = entry.subject ? entry.subject() : await event.object(db, entry.projectId, entry.itemId);
      const data: Record<string, unknown> = { object };
      if (entry.activity === 'updated') data.changes = changesOf(entry);
      await enqueueWithContext(
        db,
        entry.projectId,
        endpoints.map((endpoint) => endpoint.id),
        { type: event.type, timestamp: isoUtc(new Date()), actorId: entry.userId, data },
      );
      unit.afterCommit(onEnqueued);
    }
  };
}
