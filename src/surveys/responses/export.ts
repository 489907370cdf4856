/**
 * `GET {id}/responses/?format=csv`: every response of the list's window and filters as CSV, one
 * row per response, one column per question (its text as the header). Read in keyset batches of
 * EXPORT_BATCH rows, each its own short read (no connection is held while the client is slow);
 * one batch is read ahead, the one after only when the client has taken the last (the stream's
 * backpressure), and a client that goes away ends the reading.
 */
import { Readable } from 'node:stream';
import type { Pool } from '../../db/pool.ts';
import { withBoundedRead } from '../../db/bounded-read.ts';
import { requireSurvey } from '../read-store.ts';
import { questionsOf } from '../summaries/questions.ts';
import { cellText, csvRow, safeFileName } from './csv.ts';
import { isoFromMicros } from './dates.ts';
import { parseResponseListArgs, type ResponseListQueryArgs } from './list-args.ts';
import { LIST_TIMEOUT_MS, prepareReading, presentPerson } from './list.ts';
import { loadResponsePage, type ListPosition, type ResponseRow } from './list-store.ts';

export const EXPORT_BATCH = 5000;

export interface ResponseExport {
  fileName: string;
  stream: Readable;
}

const FIXED_HEADERS = ['Response ID', 'Timestamp', 'Distinct ID', 'Person', 'Archived', 'Partial'];

/** Checks the survey and the arguments (errors answer before any byte of CSV), then streams. */
export async function exportSurveyResponses(
  pool: Pool,
  target: { projectId: number; rawSurveyId: string },
  query: ResponseListQueryArgs,
): Promise<ResponseExport> {
  const survey = await requireSurvey(pool, target.projectId, target.rawSurveyId);
  const args = parseResponseListArgs({ ...query, cursor: undefined, limit: undefined }, new Date());
  const questions = questionsOf(survey.questions);
  const reading = await withBoundedRead(pool, LIST_TIMEOUT_MS, (client) => prepareReading(client, survey, questions, args));

  async function* rows(): AsyncGenerator<string> {
    yield csvRow([...FIXED_HEADERS, ...questions.map((q) => q.text || `Question ${q.index + 1}`)]);
    if (reading === null) return;
    const read = (after: ListPosition | null) =>
      withBoundedRead(pool, LIST_TIMEOUT_MS, (client) => loadResponsePage(client, { ...reading, after, ascending: false, limit: EXPORT_BATCH }), {
        walkIndexOrder: true,
      });
    // One batch is read ahead while the one before is written out: at most two in memory.
    let pending: Promise<ResponseRow[]> | null = read(null);
    try {
      while (pending) {
        const batch: ResponseRow[] = await pending;
        const last = batch.at(-1);
        pending = batch.length === EXPORT_BATCH && last ? read({ micros: BigInt(last.micros), uuid: last.uuid }) : null;
        let chunk = '';
        for (const row of batch) {
          const person = presentPerson(row);
          chunk += csvRow([
            row.uuid,
            isoFromMicros(BigInt(row.micros)),
            row.distinct_id,
            person?.name ?? '',
            String(row.archived),
            String(row.partial),
            ...questions.map((_, i) => cellText(row.answers[i])),
          ]);
        }
        if (chunk !== '') yield chunk;
      }
    } finally {
      // The client went away: the batch being read finishes (bounded) and is dropped.
      pending?.catch(() => {});
    }
  }

  const day = new Date().toISOString().slice(0, 10);
  return { fileName: safeFileName(`${survey.name}-responses-${day}`, 'csv'), stream: Readable.from(rows(), { objectMode: false, highWaterMark: 1 }) };
}
