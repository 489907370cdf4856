/**
 * summarize_responses and summary_headline, computed locally
 * from the stored `survey sent` events: no network, no language model.
 */
import { randomUUID } from 'node:crypto';
import type { PoolWrite } from '../../db/unit-of-work.ts';
import { validationError } from '../../kernel/errors.ts';
import { DAY_MS, isoUtc, utcDay } from '../../kernel/time.ts';
import type { SurveyRecord } from '../record.ts';
import { requireSurvey } from '../read-store.ts';
import { isPlainObject } from '../validation/python.ts';
import { composeHeadline } from './headline.ts';
import { answerKeys, findQuestion, isChoiceQuestion, questionsOf } from './questions.ts';
import { loadAnswers, loadResponseSample, saveHeadline, saveQuestionSummary, type StoredQuestionSummary } from './store.ts';
import { NO_RESPONSES_CONTENT, summarizeQuestion } from './summarize.ts';

const HEADLINE_SAMPLE = 100;

const midnightUtc = (value: Date) => new Date(utcDay(value) * DAY_MS);

/** The days the survey ran: from the day of `start_date` (or `created_at`) to the end of the day of `end_date` (or now). */
function responseWindow(survey: SurveyRecord, now: Date): { from: Date; to: Date } {
  const from = midnightUtc(survey.start_date ?? survey.created_at);
  const to = new Date(midnightUtc(survey.end_date ?? now).getTime() + DAY_MS);
  return { from, to };
}

export interface SummarizeRequest {
  projectId: number;
  surveyId: string;
  questionId: string | null;
  questionIndex: number | null;
  forceRefresh: boolean;
  now?: Date;
}

export interface SummarizeResult {
  content: string;
  response_count: number;
  generated_at: string;
  /** Absent when there was nothing to analyse (PostHog). */
  trace_id?: string;
  cached: boolean;
}

function storedSummary(summaries: unknown, questionId: string): StoredQuestionSummary | null {
  if (!isPlainObject(summaries)) return null;
  const entry = summaries[questionId];
  if (!isPlainObject(entry)) return null;
  const { summary, responseCount, generatedAt, traceId } = entry;
  if (typeof summary !== 'string' || typeof responseCount !== 'number') return null;
  return { summary, responseCount, generatedAt: String(generatedAt ?? ''), traceId: String(traceId ?? '') };
}

/**
 * In PostHog's order: 404, a question is named, the stored summary (by question id, unless
 * force_refresh), the question exists, then the computation. Stored only when asked by question id.
 */
export async function summarizeResponses(db: PoolWrite, request: SummarizeRequest): Promise<SummarizeResult> {
  const survey = await requireSurvey(db, request.projectId, request.surveyId);
  const { questionId, questionIndex } = request;
  if (questionId === null && questionIndex === null) throw validationError('question_index or question_id is required');
  if (questionId !== null && !request.forceRefresh) {
    const stored = storedSummary(survey.question_summaries, questionId);
    if (stored) {
      return { content: stored.summary, response_count: stored.responseCount, generated_at: stored.generatedAt, trace_id: stored.traceId, cached: true };
    }
  }
  const question = findQuestion(questionsOf(survey.questions), { id: questionId, index: questionIndex });
  if (question === null || question.text.trim() === '') throw validationError('the text of the question is required');

  const now = request.now ?? new Date();
  const answers = await loadAnswers(db, {
    projectId: request.projectId,
    surveyId: survey.id,
    ...responseWindow(survey, now),
    keys: answerKeys(question),
    skipExactly: isChoiceQuestion(question) ? question.choices : [],
  });
  const summary = summarizeQuestion(question, answers);
  const generatedAt = isoUtc(now);
  if (summary === null) return { content: NO_RESPONSES_CONTENT, response_count: 0, generated_at: generatedAt, cached: false };
  const traceId = randomUUID();
  if (questionId !== null) {
    await saveQuestionSummary(db, request.projectId, survey.id, questionId, {
      summary: summary.content,
      responseCount: summary.responseCount,
      generatedAt,
      traceId,
    });
  }
  return { content: summary.content, response_count: summary.responseCount, generated_at: generatedAt, trace_id: traceId, cached: false };
}

export interface HeadlineRequest {
  projectId: number;
  surveyId: string;
  forceRefresh: boolean;
  now?: Date;
}

export interface HeadlineResult {
  headline: string;
  responses_sampled: number;
  has_more: boolean;
}

/**
 * The cached headline unless force_refresh (PostHog serves it only when both the text and the
 * count are set), else one sentence over the newest 100 responses, saved on the survey.
 */
export async function summaryHeadline(db: PoolWrite, request: HeadlineRequest): Promise<HeadlineResult> {
  const survey = await requireSurvey(db, request.projectId, request.surveyId);
  if (!request.forceRefresh && survey.headline_summary && survey.headline_response_count) {
    return { headline: survey.headline_summary, responses_sampled: survey.headline_response_count, has_more: false };
  }
  const questions = questionsOf(survey.questions).filter((q) => q.type !== 'link');
  if (questions.length === 0) return { headline: 'No questions in survey', responses_sampled: 0, has_more: false };

  const rows = await loadResponseSample(db, {
    projectId: request.projectId,
    surveyId: survey.id,
    ...responseWindow(survey, request.now ?? new Date()),
    partialResponses: survey.enable_partial_responses === true,
    limit: HEADLINE_SAMPLE,
  });
  if (rows.length === 0) return { headline: 'No responses yet', responses_sampled: 0, has_more: false };
  const sample = rows.slice(0, HEADLINE_SAMPLE);
  const headline = composeHeadline(questions, sample);
  await saveHeadline(db, request.projectId, survey.id, headline, sample.length);
  return { headline, responses_sampled: sample.length, has_more: rows.length > HEADLINE_SAMPLE };
}
