/**
 * `survey.response`: an ingestion processor that writes one message per `survey sent` event in the
 * batch's transaction, with the answers keyed as the responses API keys them.
 */
import type { WriteTx } from '../../db/unit-of-work.ts';
import type { EventProcessor } from '../../events/pipeline.ts';
import type { IncomingEvent } from '../../events/types.ts';
import { isoUtc } from '../../kernel/time.ts';
import { SURVEY_SENT } from '../../surveys/record.ts';
import { answerIn, questionsOf } from '../../surveys/summaries/questions.ts';
import { questionKey } from '../../surveys/responses/list.ts';
import { enqueueMessages, type WebhookMessage } from '../outbox.ts';
import { subscribedEndpoints } from '../store.ts';
import { messageContext } from './context.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const SURVEY_RESPONSE_EVENT = 'survey.response';

interface SurveyRow {
  id: string;
  name: string;
  questions: unknown;
}

export function surveyResponseWebhooks(onEnqueued: () => void): EventProcessor {
  return {
    async process(client: WriteTx, projectId: number, events: IncomingEvent[], unit) {
      const sent = events.filter((event) => event.event === SURVEY_SENT && typeof event.properties.$survey_id === 'string' && UUID.test(event.properties.$survey_id));
      if (sent.length === 0) return;
      const endpoints = await subscribedEndpoints(client, projectId, SURVEY_RESPONSE_EVENT);
      if (endpoints.length === 0) return;
      const ids = [...new Set(sent.map((event) => String(event.properties.$survey_id).toLowerCase()))];
      const { rows } = await client.query<SurveyRow>('SELECT id, name, questions FROM surveys WHERE project_id = $1 AND id = ANY($2::uuid[])', [projectId, ids]);
      const surveys = new Map(rows.map((row) => [row.id, row]));
      const { project } = await messageContext(client, projectId, null);
      const messages: WebhookMessage[] = [];
      for (const event of sent) {
        const survey = surveys.get(String(event.properties.$survey_id).toLowerCase());
        if (!survey) continue;
        const answers: Record<string, unknown> = {};
        for (const question of questionsOf(survey.questions)) answers[questionKey(question)] = answerIn(event.properties, question) ?? null;
        messages.push({
          type: SURVEY_RESPONSE_EVENT,
          timestamp: isoUtc(new Date()),
          data: {
            project,
            actor: null,
            survey: { id: survey.id, name: survey.name },
            object: {
              uuid: event.uuid,
              distinct_id: event.distinctId,
              timestamp: isoUtc(event.timestamp),
              answers,
              partial: event.properties.$survey_partially_completed === true || event.properties.$survey_partially_completed === 'true',
            },
          },
        });
      }
      await enqueueMessages(client, projectId, endpoints.map((endpoint) => endpoint.id), messages);
      if (messages.length > 0) unit.afterCommit(onEnqueued);
    },
  };
}
