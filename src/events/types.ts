/**
 * One event as ingestion hands it to the processors, after the edge has decoded, validated and
 * normalised it: `$set`, `$set_once` and `$unset` sent at the top level of the event are moved into
 * `properties` (where posthog-js and posthog-node put them anyway), the timestamp is resolved
 * (clock skew from `sent_at`, `offset`), and a missing uuid has been assigned.
 */
export interface IncomingEvent {
  uuid: string;
  event: string;
  distinctId: string;
  properties: Record<string, unknown>;
  timestamp: Date;
}
