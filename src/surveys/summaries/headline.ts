/**
 * The text of `summary_headline`: one plain sentence of at most 20 words over the
 * sampled responses. Per question, in the survey's order: the rating average (and NPS on 0–10), the
 * top choice with its share, the main themes of open answers; clauses are added while the sentence
 * stays within 20 words.
 */
import { answerIn, answerTexts, isChoiceQuestion, type SurveyQuestion } from './questions.ts';
import { ratingAnswers } from './summarize.ts';
import { choiceDistribution, oneDecimal, ratingStats } from './stats.ts';
import { isLowQualityAnswer, plural, wordCount } from './text.ts';
import { extractThemes } from './themes.ts';

export const MAX_HEADLINE_WORDS = 20;
const MAX_CHOICE_WORDS = 4;

type Properties = Record<string, unknown>;

function shortChoice(choice: string): string {
  const words = choice.split(/\s+/).filter((w) => w.length > 0);
  return words.length <= MAX_CHOICE_WORDS ? words.join(' ') : `${words.slice(0, MAX_CHOICE_WORDS).join(' ')}…`;
}

function ratingClause(question: SurveyQuestion, answers: unknown[]): string | null {
  const values = ratingAnswers(question, answers);
  if (values.length === 0) return null;
  const stats = ratingStats(values, question.scale);
  const nps = stats.nps ? ` (NPS ${stats.nps.score})` : '';
  return `ratings average ${oneDecimal(stats.average)}/${question.scale}${nps}`;
}

function choiceClause(question: SurveyQuestion, answers: unknown[]): string | null {
  const { shares } = choiceDistribution(answers, question);
  if (shares.length === 0) return null;
  return `"${shortChoice(shares[0].choice)}" led with ${shares[0].percent}%`;
}

function openClause(answers: unknown[]): string | null {
  const texts = answers.flatMap(answerTexts).filter((text) => !isLowQualityAnswer(text));
  if (texts.length === 0) return null;
  const labels = extractThemes(texts)
    .themes.slice(0, 2)
    .map((theme) => theme.label.toLowerCase());
  return labels.length === 0 ? 'answers cover varied topics' : `answers mention ${labels.join(' and ')}`;
}

function clauseFor(question: SurveyQuestion, rows: Properties[]): string | null {
  const answers = rows.map((row) => answerIn(row, question)).filter((a) => a !== undefined);
  if (answers.length === 0) return null;
  if (question.type === 'rating') return ratingClause(question, answers);
  if (isChoiceQuestion(question)) return choiceClause(question, answers);
  return openClause(answers);
}

function sentence(responses: number, clauses: string[]): string {
  // A comma before the last "and": clauses may contain "and" themselves.
  const list = clauses.length === 1 ? clauses[0] : `${clauses.slice(0, -1).join(', ')}, and ${clauses[clauses.length - 1]}`;
  return `Across ${plural(responses, 'response')}, ${list}.`;
}

/** `questions` without link questions; `rows` the sampled events' properties (at least one). */
export function composeHeadline(questions: SurveyQuestion[], rows: Properties[]): string {
  const clauses: string[] = [];
  for (const question of questions) {
    const clause = clauseFor(question, rows);
    if (clause === null) continue;
    if (wordCount(sentence(rows.length, [...clauses, clause])) > MAX_HEADLINE_WORDS) continue;
    clauses.push(clause);
  }
  return clauses.length === 0 ? `${plural(rows.length, 'response')} received, none with answers to summarise.` : sentence(rows.length, clauses);
}
