/** Per-question results computed from responses (answers keyed by question id). Pure. */
import { isObject, questionType } from './survey-form.ts';
import type { Json, SurveyResponseItem } from './types.ts';

export interface Bar {
  label: string;
  count: number;
}

export interface RatingResult {
  kind: 'rating';
  bars: Bar[];
  answered: number;
  average: number | null;
  /** Net promoter score (0–10 scales): % promoters (9–10) − % detractors (0–6). */
  nps: { score: number; promoters: number; passives: number; detractors: number } | null;
}
export interface ChoiceResult {
  kind: 'choice';
  bars: Bar[];
  answered: number;
  /** Texts typed into the open choice. */
  openTexts: string[];
}
export interface OpenResult {
  kind: 'open';
  answers: Array<{ text: string; uuid: string; timestamp: string }>;
}
export interface LinkResult {
  kind: 'link';
  clicked: number;
}
export type QuestionResult = RatingResult | ChoiceResult | OpenResult | LinkResult;

/** A question's id as responses key it (questions saved by the API always have one). */
export function questionId(question: Json, index: number): string {
  return typeof question.id === 'string' && question.id !== '' ? question.id : String(index);
}

function answerOf(response: SurveyResponseItem, id: string): unknown {
  const value = response.answers[id];
  return value === null || value === '' ? undefined : value;
}

export function ratingScale(question: Json): number[] {
  const scale = Number(question.scale) || 5;
  return scale === 10 ? Array.from({ length: 11 }, (_, i) => i) : Array.from({ length: scale }, (_, i) => i + 1);
}

export function questionResult(question: Json, index: number, responses: SurveyResponseItem[]): QuestionResult {
  const id = questionId(question, index);
  const type = questionType(question);
  const answers = responses.map((response) => ({ response, value: answerOf(response, id) })).filter((item) => item.value !== undefined);
  if (type === 'rating') {
    const values = ratingScale(question);
    const counts = new Map(values.map((value) => [value, 0]));
    let sum = 0;
    let answered = 0;
    for (const { value } of answers) {
      const number = Number(value);
      if (!counts.has(number)) continue;
      counts.set(number, counts.get(number)! + 1);
      sum += number;
      answered += 1;
    }
    let nps: RatingResult['nps'] = null;
    if (Number(question.scale) === 10 && answered > 0) {
      const promoters = (counts.get(9) ?? 0) + (counts.get(10) ?? 0);
      const passives = (counts.get(7) ?? 0) + (counts.get(8) ?? 0);
      const detractors = answered - promoters - passives;
      nps = { score: Math.round(((promoters - detractors) / answered) * 100), promoters, passives, detractors };
    }
    return { kind: 'rating', bars: values.map((value) => ({ label: String(value), count: counts.get(value)! })), answered, average: answered ? sum / answered : null, nps };
  }
  if (type === 'single_choice' || type === 'multiple_choice') {
    const choices = Array.isArray(question.choices) ? question.choices.map(String) : [];
    const openLabel = question.hasOpenChoice === true ? choices[choices.length - 1] : null;
    const counts = new Map(choices.map((choice) => [choice, 0]));
    const openTexts: string[] = [];
    for (const { value } of answers) {
      const picked = Array.isArray(value) ? value.map(String) : [String(value)];
      for (const choice of picked) {
        if (counts.has(choice)) counts.set(choice, counts.get(choice)! + 1);
        else if (openLabel !== null) {
          counts.set(openLabel, counts.get(openLabel)! + 1);
          openTexts.push(choice);
        } else counts.set(choice, (counts.get(choice) ?? 0) + 1);
      }
    }
    const bars = [...counts.entries()].map(([label, count]) => ({ label, count })).sort((a, b) => b.count - a.count);
    return { kind: 'choice', bars, answered: answers.length, openTexts };
  }
  if (type === 'link') return { kind: 'link', clicked: answers.length };
  return {
    kind: 'open',
    answers: answers.map(({ response, value }) => ({ text: typeof value === 'string' ? value : JSON.stringify(value), uuid: response.uuid, timestamp: response.timestamp })),
  };
}

/**
 * Responses per UTC day from the first day with one (or `from`) to the last (or `to`), widened back
 * to at least `minDays` days (a chart of one day has no scale).
 */
export function responsesPerDay(responses: SurveyResponseItem[], from?: string, to?: string, minDays = 1): { days: string[]; values: number[] } {
  const counts = new Map<string, number>();
  for (const response of responses) {
    const day = response.timestamp.slice(0, 10);
    counts.set(day, (counts.get(day) ?? 0) + 1);
  }
  const known = [...counts.keys()].sort();
  const last = to?.slice(0, 10) ?? known[known.length - 1];
  let first = from?.slice(0, 10) ?? known[0];
  if (!first || !last) return { days: [], values: [] };
  const earliest = new Date(Date.parse(`${last}T00:00:00Z`) - (minDays - 1) * 86_400_000).toISOString().slice(0, 10);
  if (earliest < first) first = earliest;
  const days: string[] = [];
  for (let time = Date.parse(`${first}T00:00:00Z`), end = Date.parse(`${last}T00:00:00Z`); time <= end && days.length < 400; time += 86_400_000) {
    days.push(new Date(time).toISOString().slice(0, 10));
  }
  return { days, values: days.map((day) => counts.get(day) ?? 0) };
}

/** An answer as one line of text (lists joined with ", "). */
export function answerText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(String).join(', ');
  if (isObject(value)) return JSON.stringify(value);
  return String(value);
}
