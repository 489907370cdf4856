/**
 * The public survey feed's body, `{"surveys":[…],"survey_config":null}`: per survey
 * `id, name, type`, the flag keys that exist, `questions, conditions, appearance` as stored, the
 * dates and iteration, `schedule, enable_partial_responses`, and `translations` only when it holds
 * something. `description` is left out, as PostHog does.
 */
import { weakEtag } from '../../kernel/http/etag.ts';
import { isoUtc } from '../../kernel/time.ts';
import { isTruthy } from '../validation/python.ts';
import type { FeedRow } from './store.ts';

export interface RenderedFeed {
  json: string;
  /** `W/"<hash of json>"`: the same in every process for the same state. */
  etag: string;
  surveyCount: number;
  /** The flags the feed names: a change to any other flag leaves it as it is. */
  flagIds: ReadonlySet<number>;
}

export function feedSurvey(row: FeedRow): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    ...(row.linked_flag_key !== null ? { linked_flag_key: row.linked_flag_key } : {}),
    ...(row.targeting_flag_key !== null ? { targeting_flag_key: row.targeting_flag_key } : {}),
    ...(row.internal_targeting_flag_key !== null ? { internal_targeting_flag_key: row.internal_targeting_flag_key } : {}),
    questions: row.questions ?? null,
    conditions: row.conditions ?? null,
    appearance: row.appearance ?? null,
    start_date: isoUtc(row.start_date),
    end_date: isoUtc(row.end_date),
    current_iteration: row.current_iteration,
    current_iteration_start_date: isoUtc(row.current_iteration_start_date),
    schedule: row.schedule,
    enable_partial_responses: row.enable_partial_responses,
    ...(isTruthy(row.translations) ? { translations: row.translations } : {}),
  };
}

export function renderFeed(rows: readonly FeedRow[]): RenderedFeed {
  const json = JSON.stringify({ surveys: rows.map(feedSurvey), survey_config: null });
  const flagIds = new Set<number>();
  for (const row of rows) {
    for (const id of [row.linked_flag_id, row.targeting_flag_id, row.internal_targeting_flag_id]) if (id !== null) flagIds.add(id);
  }
  return { json, etag: weakEtag(json), surveyCount: rows.length, flagIds };
}
