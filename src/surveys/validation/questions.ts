import { checkAnswerRules } from './answer-rules.ts';
import { checkChoiceItems } from './choices.ts';
import { questionsError } from '../errors.ts';
import { checkLink } from './links.ts';
import { checkQuestionTranslations } from './question-translations.ts';
import { isMissing, isPlainObject, isTruthy } from './python.ts';
import { sanitizeText } from './sanitize.ts';
import type { SurveyQuestion } from './shapes.ts';

const OPTIONAL_TEXTS = ['buttonText', 'lowerBoundLabel', 'upperBoundLabel'];
const CONTENT_TYPES = ['text', 'html'];

/**
 * `questions` (attr `questions`): the checks of each question in PostHog's order;
 * answers the questions to store, texts sanitised, every other key kept as sent. Null stays null.
 *
 * Where PostHog lets a falsy value of the wrong type through unchecked (`description: 0`), it is
 * rejected here with the rule's message; null always counts as absent.
 */
export function checkQuestions(raw: unknown): SurveyQuestion[] | null {
  if (raw === null) return null;
  if (!Array.isArray(raw)) throw questionsError('Questions must be a list of objects');
  return raw.map((question, index) => checkQuestion(question, index + 1));
}

/** `number` is the 1-based position PostHog's messages print (`Question 1: ...` for the first). */
function checkQuestion(raw: unknown, number: number): SurveyQuestion {
  if (!isPlainObject(raw)) throw questionsError('Questions must be a list of objects');
  if (!isTruthy(raw.question)) throw questionsError('Question text is required');
  if (typeof raw.question !== 'string') throw questionsError('Question text must be a string');
  const question: SurveyQuestion = { ...raw, question: sanitizeText(raw.question) };

  for (const field of ['description', ...OPTIONAL_TEXTS]) {
    const value = raw[field];
    if (isMissing(value)) continue;
    if (typeof value !== 'string') throw questionsError(`Question ${field} must be a string`);
    question[field] = sanitizeText(value);
  }

  let choices: string[] | null = null;
  if (!isMissing(raw.choices)) {
    if (!Array.isArray(raw.choices)) throw questionsError('Question choices must be a list of strings');
    choices = checkChoiceItems(raw.choices);
    question.choices = choices;
  }

  const contentType = raw.descriptionContentType;
  if (!isMissing(contentType) && contentType !== '' && !CONTENT_TYPES.includes(contentType as string)) {
    throw questionsError("Question descriptionContentType must be one of ['text', 'html']");
  }

  if ('translations' in raw) question.translations = checkQuestionTranslations(raw.translations, number, choices);

  const link = raw.link;
  if (!isMissing(link) && link !== '') {
    if (typeof link !== 'string') throw questionsError(`Question ${number}: link must be a string`);
    question.link = checkLink(link);
  }

  if (!isMissing(raw.validation)) checkAnswerRules(raw.validation);
  return question;
}
