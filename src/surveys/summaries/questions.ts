/**
 * Survey questions and where their answers sit in `survey sent` events: the id-based
 * key `$survey_response_<questionId>` first, else the legacy index key (`$survey_response` for
 * question 0, `$survey_response_<n>` for question n).
 */
import sanitizeHtml from 'sanitize-html';
import { isPlainObject } from '../validation/python.ts';

/** Question texts may hold (sanitised) HTML; a summary quotes their words only. */
function plainText(html: string): string {
  return sanitizeHtml(html, { allowedTags: [], allowedAttributes: {} }).replace(/\s+/g, ' ').trim();
}

export interface SurveyQuestion {
  id: string | null;
  /** Position in the survey's `questions`. */
  index: number;
  type: string;
  /** The question's words, without markup. */
  text: string;
  /** Predefined choices of a choice question (the open choice's label included). */
  choices: string[];
  /** The rating scale (3, 5, 7, 10); 10 when not given. */
  scale: number;
  /** A choice question whose last choice takes free text. */
  hasOpenChoice: boolean;
}

/** The stored questions, each with its position; entries that are not objects are skipped. */
export function questionsOf(raw: unknown): SurveyQuestion[] {
  if (!Array.isArray(raw)) return [];
  const questions: SurveyQuestion[] = [];
  raw.forEach((entry, index) => {
    if (!isPlainObject(entry)) return;
    const q = entry;
    const scale = typeof q.scale === 'number' && Number.isInteger(q.scale) && q.scale > 0 ? q.scale : 10;
    questions.push({
      id: typeof q.id === 'string' && q.id !== '' ? q.id : null,
      index,
      type: typeof q.type === 'string' ? q.type : 'open',
      text: typeof q.question === 'string' ? plainText(q.question) : '',
      choices: Array.isArray(q.choices) ? q.choices.filter((c): c is string => typeof c === 'string') : [],
      scale,
      hasOpenChoice: q.hasOpenChoice === true,
    });
  });
  return questions;
}

/** By id when one is given, else by index. */
export function findQuestion(questions: SurveyQuestion[], by: { id: string | null; index: number | null }): SurveyQuestion | null {
  if (by.id !== null) return questions.find((q) => q.id === by.id) ?? null;
  if (by.index !== null) return questions.find((q) => q.index === by.index) ?? null;
  return null;
}

export const isChoiceQuestion = (q: SurveyQuestion) => q.type === 'single_choice' || q.type === 'multiple_choice';

/** The event property keys that may hold the answer, in the order they are read. */
export function answerKeys(q: SurveyQuestion): string[] {
  const indexKey = q.index === 0 ? '$survey_response' : `$survey_response_${q.index}`;
  return q.id === null ? [indexKey] : [`$survey_response_${q.id}`, indexKey];
}

/** The answer an event carries for the question, or undefined. */
export function answerIn(properties: Record<string, unknown>, q: SurveyQuestion): unknown {
  for (const key of answerKeys(q)) {
    const value = properties[key];
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

/** A rating as a number on the question's scale (0..scale), or null (not a number, out of range). */
export function ratingValue(value: unknown, scale: number): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 && n <= scale ? n : null;
}

/** The texts of an answer: a string, or each string of a list (multiple choice). */
export function answerTexts(value: unknown): string[] {
  if (typeof value === 'string') return value.trim() === '' ? [] : [value.trim()];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value)) return value.flatMap(answerTexts);
  return [];
}
