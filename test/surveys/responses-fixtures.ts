/** Fixtures of the response tests: surveys with exact dates, survey events sent through POST /batch/. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestApp } from '../helpers/app.ts';
import { createSurvey, surveysUrl, type Json } from './support.ts';

export type Kind = 'shown' | 'dismissed' | 'sent';

export interface SurveyEvent {
  kind: Kind;
  survey: string;
  person: string;
  at: string;
  uuid?: string;
  submission?: string | null;
  partial?: boolean;
  completed?: boolean;
}

const EVENT_NAMES: Record<Kind, string> = { shown: 'survey shown', dismissed: 'survey dismissed', sent: 'survey sent' };

export function batchEvent(event: SurveyEvent): Json {
  const properties: Json = { $survey_id: event.survey };
  if (event.submission) properties.$survey_submission_id = event.submission;
  if (event.partial !== undefined) properties.$survey_partially_completed = event.partial;
  if (event.completed !== undefined) properties.$survey_completed = event.completed;
  if (event.kind === 'sent') properties.$survey_response = 'an answer';
  return { event: EVENT_NAMES[event.kind], distinct_id: event.person, uuid: event.uuid ?? randomUUID(), timestamp: event.at, properties };
}

export async function projectToken(t: TestApp, projectId = t.projectId): Promise<string> {
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [projectId]);
  return rows[0].api_token;
}

/** Sends raw batch entries through the real ingestion endpoint; asserts they were accepted. */
export async function sendBatch(t: TestApp, batch: Json[], projectId = t.projectId): Promise<void> {
  const response = await t.request({ method: 'POST', url: '/batch/', key: null, payload: { api_key: await projectToken(t, projectId), batch } });
  assert.equal(response.statusCode, 200, response.body);
}

export const sendEvents = (t: TestApp, events: SurveyEvent[], projectId?: number) => sendBatch(t, events.map(batchEvent), projectId);

export interface SurveyDates {
  created_at?: string;
  start_date?: string | null;
  end_date?: string | null;
  archived?: boolean;
}

/** A survey made through the API, its dates then set exactly (created_at cannot be sent). */
export async function surveyWith(t: TestApp, dates: SurveyDates, projectId = t.projectId): Promise<string> {
  const survey = await createSurvey(t, {}, projectId);
  const id = survey.id as string;
  await setSurveyDates(t, id, dates);
  return id;
}

export async function setSurveyDates(t: TestApp, id: string, dates: SurveyDates): Promise<void> {
  const { rowCount } = await t.db.pool.query(
    `UPDATE surveys SET created_at = coalesce($2::timestamptz, created_at),
            start_date = CASE WHEN $3::boolean THEN $4::timestamptz ELSE start_date END,
            end_date = CASE WHEN $5::boolean THEN $6::timestamptz ELSE end_date END,
            archived = coalesce($7::boolean, archived)
      WHERE id = $1`,
    [id, dates.created_at ?? null, 'start_date' in dates, dates.start_date ?? null, 'end_date' in dates, dates.end_date ?? null, dates.archived ?? null],
  );
  assert.equal(rowCount, 1);
}

export async function getJson(t: TestApp, url: string, options: { key?: string; payload?: Json } = {}) {
  return t.request({
    method: 'GET',
    url,
    ...(options.key ? { key: options.key } : {}),
    ...(options.payload ? { payload: options.payload, headers: { 'content-type': 'application/json' } } : {}),
  });
}

export const statsUrl = (id: string, query = '', projectId: number | string = 1) => `${surveysUrl(projectId)}${id}/stats/${query}`;
export const globalStatsUrl = (query = '', projectId: number | string = 1) => `${surveysUrl(projectId)}stats/${query}`;
export const countsUrl = (query = '', projectId: number | string = 1) => `${surveysUrl(projectId)}responses_count/${query}`;

export async function keyWith(t: TestApp, scopes: string[]): Promise<string> {
  const response = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: scopes.join(' '), scopes } });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().value as string;
}

export async function archive(t: TestApp, surveyId: string, uuid: string, action: 'archive' | 'unarchive' = 'archive') {
  const response = await t.request({ method: 'POST', url: `${surveysUrl()}${surveyId}/responses/${uuid}/${action}/` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

/** The per-kind figures of a stats answer, compactly: [total, unique, first, last]. */
export function figures(body: Json): Record<string, [number, number, string | null, string | null]> {
  const stats = body.stats as Record<string, Json>;
  return Object.fromEntries(
    Object.entries(stats).map(([name, s]) => [name, [s.total_count as number, s.unique_persons as number, s.first_seen as string | null, s.last_seen as string | null]]),
  );
}

export const NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };
