import type { IncomingEvent } from '../types.ts';
import type { Properties } from './properties.ts';

export const LAST_SEEN_SURVEY_DATE = '$last_seen_survey_date';

/**
 * Person properties ingestion sets by itself, as PostHog's pipeline does: every `survey shown`
 * stamps `$last_seen_survey_date` with the event's time, which the wait period of a survey's
 * internal targeting flag reads (posthog-js sends its own, differently named `$survey_last_seen_date`).
 * Answers whether the person changed.
 */
export function applyImpliedUpdates(person: Properties, event: IncomingEvent): boolean {
  if (event.event !== 'survey shown') return false;
  const seen = event.timestamp.toISOString();
  const current = person[LAST_SEEN_SURVEY_DATE];
  // Events of a batch may arrive out of order: the latest sighting wins.
  if (typeof current === 'string' && current >= seen) return false;
  person[LAST_SEEN_SURVEY_DATE] = seen;
  return true;
}
