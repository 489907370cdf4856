/**
 * Writes the outbox rows of a flag, survey, cohort or experiment change beside its activity entry,
 * in its transaction: one query finds the endpoints that take the event (once per transaction and
 * type); only then is the object taken (from the writer when it holds it, else read) and the
 * message written, one row per endpoint, in one statement. Entries a writer folds into a statement
 * of its own (flags) have their messages written by that statement, endpoints found by the insert.
 */
import type { ActivityFollower, NewActivity } from '../../accounts/activity/store.ts';
import { isoUtc } from '../../kernel/time.ts';
import { enqueueWithContext, outboxInsertCte, type FoldedMessage } from '../outbox.ts';
import { activityEventsFor } from './registry.ts';
import { endpointsTaking } from './subscriptions.ts';

/** The changed fields as before → after (an update's `changes`). */
function changesOf(entry: NewActivity): { field: string; before: unknown; after: unknown }[] {
  return (entry.detail.changes ?? []).map((change) => ({ field: change.field, before: change.before, after: change.after }));
}

export function webhookActivityFollower(onEnqueued: () => void): ActivityFollower {
  const follow: ActivityFollower['follow'] = async (unit, entry) => {
    const events = activityEventsFor(entry);
    if (events.length === 0) return;
    const db = unit.client;
    for (const event of events) {
      const endpoints = await endpointsTaking(unit, entry.projectId, event.type);
      if (endpoints.length === 0) continue;
      const object = entry.subject ? entry.subject() : await event.object(db, entry.projectId, entry.itemId);
      await enqueueWithContext(
        db,
        entry.projectId,
        endpoints.map((endpoint) => endpoint.id),
        { type: event.type, timestamp: isoUtc(new Date()), actorId: entry.userId, data: dataOf(entry, object) },
      );
      unit.afterCommit(onEnqueued);
    }
  };
  return {
    follow,
    // Entries written by a writer's own statement (the flags writer's last): their messages go in it
    // too, to whichever endpoints take them, with no lookup first. An entry whose object the writer
    // does not hold follows on its own.
    async fold(unit, entries, params) {
      const messages: FoldedMessage[] = [];
      for (const entry of entries) {
        const events = activityEventsFor(entry);
        if (events.length === 0) continue;
        if (!entry.subject) {
          await follow(unit, entry);
          continue;
        }
        const object = entry.subject();
        for (const event of events) messages.push({ projectId: entry.projectId, type: event.type, timestamp: isoUtc(new Date()), actorId: entry.userId, data: dataOf(entry, object) });
      }
      if (messages.length === 0) return null;
      return {
        cte: outboxInsertCte(messages, params),
        written: (rows) => {
          if (rows > 0) unit.afterCommit(onEnqueued);
        },
      };
    },
  };
}

function dataOf(entry: NewActivity, object: Record<string, unknown> | null): Record<string, unknown> {
  const data: Record<string, unknown> = { object };
  if (entry.activity === 'updated') data.changes = changesOf(entry);
  return data;
}
