/**
 * Which answers a question's summary reads and its Markdown, as pure functions:
 * - open (and link) questions: the written answers, low-quality ones dropped;
 * - choice questions: only what was written in (answers equal to a predefined choice dropped);
 * - rating questions: the ratings on the scale (PostHog's text filter would drop every rating;
 *   here they give the average, the bands and, on 0–10, the NPS).
 * At most 100 answers, in the order given (newest first).
 */
import { openAnswersSummary, ratingSummary, renderSummary } from './content.ts';
import { answerTexts, isChoiceQuestion, ratingValue, type SurveyQuestion } from './questions.ts';
import { ratingStats } from './stats.ts';
import { isLowQualityAnswer } from './text.ts';
import { extractThemes } from './themes.ts';

export const MAX_SUMMARY_ANSWERS = 100;

export interface QuestionSummary {
  content: string;
  responseCount: number;
}

/** The written answers that count: non-empty, not a predefined choice, not low quality; first 100. */
export function textAnswers(question: SurveyQuestion, answers: readonly unknown[]): string[] {
  const predefined = isChoiceQuestion(question) ? new Set(question.choices) : new Set<string>();
  const texts: string[] = [];
  for (const answer of answers) {
    const written = answerTexts(answer).filter((text) => !predefined.has(text) && !isLowQualityAnswer(text));
    if (written.length === 0) continue;
    texts.push(written.join(', '));
    if (texts.length === MAX_SUMMARY_ANSWERS) break;
  }
  return texts;
}

export function ratingAnswers(question: SurveyQuestion, answers: readonly unknown[]): number[] {
  return answers
    .map((answer) => ratingValue(answer, question.scale))
    .filter((value): value is number => value !== null)
    .slice(0, MAX_SUMMARY_ANSWERS);
}

/** The summary of one question's answers, or null when nothing is left to analyse. */
export function summarizeQuestion(question: SurveyQuestion, answers: readonly unknown[]): QuestionSummary | null {
  if (question.type === 'rating') {
    const values = ratingAnswers(question, answers);
    if (values.length === 0) return null;
    return { content: renderSummary(ratingSummary(question, ratingStats(values, question.scale))), responseCount: values.length };
  }
  const texts = textAnswers(question, answers);
  if (texts.length === 0) return null;
  return { content: renderSummary(openAnswersSummary(question, texts, extractThemes(texts))), responseCount: texts.length };
}

export const NO_RESPONSES_CONTENT = 'No responses to analyze.';
