/**
 * `GET {id}/responses/`: the survey's responses, newest first, by cursor (stable while responses
 * arrive: a page starts strictly after the last row of the one before). The window is the
 * statistics' one: the dates given, clamped to the survey's start (or creation) and end.
 */
import type { Pool, ReadHandle } from '../../db/pool.ts';
import { withBoundedRead } from '../../db/bounded-read.ts';
import { personName } from '../../events/persons/present.ts';
import type { SurveyRecord } from '../record.ts';
import { requireSurvey } from '../read-store.ts';
import { answerKeys, questionsOf, type SurveyQuestion } from '../summaries/questions.ts';
import { encodeCursor } from './cursor.ts';
import { isoFromMicros } from './dates.ts';
import { containsPattern, parseResponseListArgs, type ResponseListArgs, type ResponseListQueryArgs } from './list-args.ts';
import { fewSearchMatches, loadResponsePage, type ResponseQuery, type ResponseRow } from './list-store.ts';
import { clampedWindow } from './stats-store.ts';

/** A page waits at most this long for the database (a search reads every response it passes). */
export const LIST_TIMEOUT_MS = 10_000;

/**
 * A search with at most this many matches in the window reads them by key (through the trigram
 * index); with more, walking the list in order finds a page's worth soon.
 */
export const FEW_SEARCH_MATCHES = 2000;

/**
 * Whether the trigram index can narrow a search for this term: it holds the trigrams of words, so
 * a term without three letters or digits in a row would have it read every entry.
 */
const narrowsByTrigrams = (term: string) => /[\p{L}\p{N}]{3}/u.test(term);

/** The person properties shown beside a response (PostHog's events list shows the same three). */
export const PERSON_KEYS = ['email', 'name', 'username'];

export interface ResponsePerson {
  id: string;
  name: string;
  properties: Record<string, unknown>;
}

export interface SurveyResponseItem {
  uuid: string;
  distinct_id: string;
  person: ResponsePerson | null;
  timestamp: string;
  /** question id → the answer as sent (a list for multiple choice), null when not answered. */
  answers: Record<string, unknown>;
  archived: boolean;
  partial: boolean;
}

export interface ResponsePage {
  next: string | null;
  previous: string | null;
  results: SurveyResponseItem[];
}

/** The key an answer is shown under: the question's id (PostHog's `$survey_response_<id>`), else its position. */
export const questionKey = (q: SurveyQuestion) => q.id ?? String(q.index);

/** Open answers: open questions and the free text of a choice question's open choice. */
const searchable = (q: SurveyQuestion) => q.type === 'open' || q.hasOpenChoice;

/** Everything but the position, direction and size of a read; null when the window holds no instant. */
export type ResponseReading = Omit<ResponseQuery, 'after' | 'ascending' | 'limit'>;

export async function prepareReading(
  db: ReadHandle,
  survey: SurveyRecord,
  questions: SurveyQuestion[],
  args: Pick<ResponseListArgs, 'range' | 'excludeArchived' | 'search'>,
): Promise<ResponseReading | null> {
  const window = await clampedWindow(db, survey.project_id, survey.id, args.range.from?.iso ?? null, args.range.to?.iso ?? null);
  if (window.empty) return null;
  const searchKeys = questions.filter(searchable).flatMap(answerKeys);
  const searchPattern = args.search === null ? null : containsPattern(args.search);
  const place = { projectId: survey.project_id, surveyId: survey.id, from: window.from, to: window.to, searchKeys };
  return {
    ...place,
    questions,
    searchPattern,
    searchMatches:
      searchPattern === null || !narrowsByTrigrams(args.search ?? '') ? null : await fewSearchMatches(db, { ...place, searchPattern }, FEW_SEARCH_MATCHES),
    excludeArchived: args.excludeArchived,
    personKeys: PERSON_KEYS,
  };
}

export function presentPerson(row: ResponseRow): ResponsePerson | null {
  if (row.person_uuid === null) return null;
  const properties = row.person_properties ?? {};
  return { id: row.person_uuid, name: personName(properties, [row.distinct_id], row.person_uuid), properties };
}

export function presentResponse(row: ResponseRow, questions: SurveyQuestion[]): SurveyResponseItem {
  const answers: Record<string, unknown> = {};
  questions.forEach((q, i) => {
    answers[questionKey(q)] = row.answers[i] ?? null;
  });
  return {
    uuid: row.uuid,
    distinct_id: row.distinct_id,
    person: presentPerson(row),
    timestamp: isoFromMicros(BigInt(row.micros)),
    answers,
    archived: row.archived,
    partial: row.partial,
  };
}

const positionOf = (row: ResponseRow) => ({ micros: BigInt(row.micros), uuid: row.uuid });

/**
 * One page. `pageUrl` turns a cursor into the absolute URL of that page (the request's own URL,
 * every other parameter kept). Arguments are checked once the survey is found (404 before 400).
 */
export async function listSurveyResponses(
  pool: Pool,
  target: { projectId: number; rawSurveyId: string },
  query: ResponseListQueryArgs,
  pageUrl: (cursor: string) => string,
): Promise<ResponsePage> {
  const survey = await requireSurvey(pool, target.projectId, target.rawSurveyId);
  const args = parseResponseListArgs(query, new Date());
  const questions = questionsOf(survey.questions);
  const rows = await withBoundedRead(pool, LIST_TIMEOUT_MS, async (client) => {
    const reading = await prepareReading(client, survey, questions, args);
    if (reading === null) return [];
    const backwards = args.cursor?.direction === 'previous';
    return loadResponsePage(client, { ...reading, after: args.cursor?.position ?? null, ascending: backwards, limit: args.limit + 1 });
  }, { walkIndexOrder: true });
  const more = rows.length > args.limit;
  const page = rows.slice(0, args.limit);
  const link = (row: ResponseRow | undefined, direction: 'next' | 'previous') =>
    row === undefined ? null : pageUrl(encodeCursor({ position: positionOf(row), direction }));
  let next: string | null;
  let previous: string | null;
  if (args.cursor?.direction === 'previous') {
    // Read oldest first from the position: the page, then (beyond it) whether newer ones remain.
    page.reverse();
    next = link(page.at(-1), 'next');
    previous = more ? link(page[0], 'previous') : null;
  } else {
    next = more ? link(page.at(-1), 'next') : null;
    previous = args.cursor ? link(page[0], 'previous') : null;
  }
  return { next, previous, results: page.map((row) => presentResponse(row, questions)) };
}
