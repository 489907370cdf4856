import type { EventProcessor } from '../../events/pipeline.ts';
import type { IncomingEvent } from '../../events/types.ts';
import { SURVEY_DISMISSED, SURVEY_SENT, SURVEY_SHOWN } from '../record.ts';
import { takeAdvisoryLocks } from '../../db/advisory-locks.ts';
import { applySurveyEvents, surveyLockKeys } from './ingest-store.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';

const SURVEY_EVENTS = new Set([SURVEY_SHOWN, SURVEY_DISMISSED, SURVEY_SENT]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The batch's survey events: their uuids and the surveys they name (a `$survey_id` that is not a UUID names none). */
export function surveyEventsOf(events: readonly IncomingEvent[]): { uuids: string[]; surveyIds: Set<string> } {
  const uuids: string[] = [];
  const surveyIds = new Set<string>();
  for (const event of events) {
    if (!SURVEY_EVENTS.has(event.event)) continue;
    const surveyId = event.properties.$survey_id;
    if (typeof surveyId !== 'string' || !UUID.test(surveyId)) continue;
    uuids.push(event.uuid);
    surveyIds.add(surveyId.toLowerCase());
  }
  return { uuids, surveyIds };
}

/**
 * `survey shown` / `dismissed` / `sent` → survey_events and the response rollups, inside the batch's
 * transaction (so the statistics never see an event the store does not hold, nor miss one it
 * does). Three statements per batch that has survey events: the surveys' locks, the write, then
 * the submissions' chains (superseded_at).
 */
export function surveyResponsesProcessor(): EventProcessor {
  return {
    async process(client: WriteTx, projectId: number, events: IncomingEvent[]) {
      const { uuids, surveyIds } = surveyEventsOf(events);
      if (uuids.length === 0) return;
      await takeAdvisoryLocks(client, surveyLockKeys(projectId, surveyIds));
      await applySurveyEvents(client, projectId, uuids);
    },
  };
}
