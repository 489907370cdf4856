/**
 * The survey builder's form and its mapping to and from the API's survey. Pure (no DOM), tested by
 * `test/web/survey-form.test.ts`: every survey the API accepts comes back unchanged from
 * `surveyFormBody(surveyToForm(survey))`. Questions, appearance and conditions are kept as the
 * objects they are (PostHog stores them as sent, unknown keys included); the builder edits their
 * known keys and removes a key it empties, so whatever it does not edit is written back as it came.
 */
import type { FlagFilters } from '../api/types.ts';
import { filtersToForm, formToFilters, newUid, type FiltersForm } from '../flags/filters-form.ts';
import type { Json, Survey } from './types.ts';

export const QUESTION_TYPES = ['open', 'link', 'rating', 'single_choice', 'multiple_choice'] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export const QUESTION_TYPE_LABELS: Record<QuestionType, string> = {
  open: 'Open text',
  link: 'Link',
  rating: 'Rating',
  single_choice: 'Single choice',
  multiple_choice: 'Multiple choice',
};

/** Keys that belong to one question type only: dropped when the type changes. */
const TYPE_KEYS: Record<QuestionType, string[]> = {
  open: ['validation'],
  link: ['link'],
  rating: ['display', 'scale', 'lowerBoundLabel', 'upperBoundLabel', 'isNpsQuestion'],
  single_choice: ['choices', 'hasOpenChoice', 'shuffleOptions'],
  multiple_choice: ['choices', 'hasOpenChoice', 'shuffleOptions'],
};

export interface QuestionForm {
  /** A key for the UI's list, never sent. */
  uid: string;
  /** The question object as the API stores it. */
  value: Json;
}

export interface SurveyForm {
  name: string;
  description: string;
  type: string;
  questions: QuestionForm[];
  /** null: the survey has none (posthog-js uses its defaults). */
  appearance: Json | null;
  conditions: Json | null;
  linkedFlagId: number | null;
  /** The targeting flag's filters (person properties); null: no targeting flag. */
  targeting: FiltersForm | null;
  /** The survey had a targeting flag when it was loaded (removing it must be said). */
  hadTargeting: boolean;
  schedule: string | null;
  iterationCount: number | null;
  iterationFrequencyDays: number | null;
  responsesLimit: number | null;
  samplingStartDate: string | null;
  samplingIntervalType: string | null;
  samplingInterval: number | null;
  samplingLimit: number | null;
  enablePartialResponses: boolean | null;
}

export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export function questionType(question: Json): QuestionType | null {
  return QUESTION_TYPES.includes(question.type as QuestionType) ? (question.type as QuestionType) : null;
}

export function newQuestion(type: QuestionType): QuestionForm {
  const base: Json = { type, question: '', description: '', descriptionContentType: 'text' };
  switch (type) {
    case 'open':
      break;
    case 'link':
      Object.assign(base, { link: 'https://', buttonText: 'Open' });
      break;
    case 'rating':
      Object.assign(base, { display: 'number', scale: 10, lowerBoundLabel: 'Unlikely', upperBoundLabel: 'Very likely', isNpsQuestion: true });
      break;
    case 'single_choice':
    case 'multiple_choice':
      Object.assign(base, { choices: ['Yes', 'No'] });
      break;
  }
  return { uid: newUid('q'), value: base };
}

/** The question with another type: keys of its old type go, the new type's defaults come. */
export function withQuestionType(question: QuestionForm, type: QuestionType): QuestionForm {
  const old = questionType(question.value);
  if (old === type) return question;
  const kept: Json = { ...question.value };
  for (const key of old ? TYPE_KEYS[old] : []) if (!TYPE_KEYS[type].includes(key)) delete kept[key];
  const fresh = newQuestion(type).value;
  const value: Json = { ...fresh, ...kept, type };
  for (const key of TYPE_KEYS[type]) if (key in fresh && !(key in kept)) value[key] = fresh[key];
  // Branching by choice or rating bucket means nothing once the answers are of another kind.
  if (isObject(value.branching) && value.branching.type === 'response_based') delete value.branching;
  return { uid: question.uid, value };
}

/** Sets `key` (or removes it when `next` is undefined), leaving the other keys as they are. */
export function withKey<T extends Json>(object: T, key: string, next: unknown): T {
  const copy: Json = { ...object };
  if (next === undefined) delete copy[key];
  else copy[key] = next;
  return copy as T;
}

export function surveyToForm(survey: Survey): SurveyForm {
  const questions = Array.isArray(survey.questions) ? survey.questions : [];
  const targetingFilters = survey.targeting_flag && !survey.targeting_flag.deleted ? survey.targeting_flag.filters : null;
  return {
    name: survey.name,
    description: survey.description ?? '',
    type: survey.type,
    questions: questions.filter(isObject).map((value) => ({ uid: newUid('q'), value: structuredClone(value) })),
    appearance: isObject(survey.appearance) ? structuredClone(survey.appearance) : null,
    conditions: isObject(survey.conditions) ? structuredClone(survey.conditions) : null,
    linkedFlagId: survey.linked_flag_id ?? survey.linked_flag?.id ?? null,
    targeting: targetingFilters ? filtersToForm(targetingFilters) : null,
    hadTargeting: targetingFilters !== null,
    schedule: survey.schedule,
    iterationCount: survey.iteration_count,
    iterationFrequencyDays: survey.iteration_frequency_days,
    responsesLimit: survey.responses_limit,
    samplingStartDate: survey.response_sampling_start_date,
    samplingIntervalType: survey.response_sampling_interval_type,
    samplingInterval: survey.response_sampling_interval,
    samplingLimit: survey.response_sampling_limit,
    enablePartialResponses: survey.enable_partial_responses,
  };
}

export function newSurveyForm(): SurveyForm {
  const first = newQuestion('open');
  first.value.question = 'What can we do to improve our product?';
  return {
    name: '',
    description: '',
    type: 'popover',
    questions: [first],
    appearance: {
      backgroundColor: '#eeeded',
      submitButtonColor: 'black',
      submitButtonTextColor: 'white',
      ratingButtonColor: 'white',
      ratingButtonActiveColor: 'black',
      borderColor: '#c9c6c6',
      placeholder: 'Start typing...',
      position: 'right',
      displayThankYouMessage: true,
      thankYouMessageHeader: 'Thank you for your feedback!',
    },
    conditions: null,
    linkedFlagId: null,
    targeting: null,
    hadTargeting: false,
    schedule: 'once',
    iterationCount: null,
    iterationFrequencyDays: null,
    responsesLimit: null,
    samplingStartDate: null,
    samplingIntervalType: null,
    samplingInterval: null,
    samplingLimit: null,
    enablePartialResponses: null,
  };
}

/** The create or update body: every field the builder shows. */
export function surveyFormBody(form: SurveyForm): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: form.name.trim(),
    description: form.description,
    type: form.type,
    questions: form.questions.map((question) => question.value),
    appearance: form.appearance,
    conditions: form.conditions,
    linked_flag_id: form.linkedFlagId,
    schedule: form.schedule,
    iteration_count: form.iterationCount,
    iteration_frequency_days: form.iterationFrequencyDays,
    responses_limit: form.responsesLimit,
    response_sampling_start_date: form.samplingStartDate,
    response_sampling_interval_type: form.samplingIntervalType,
    response_sampling_interval: form.samplingInterval,
    response_sampling_limit: form.samplingLimit,
    enable_partial_responses: form.enablePartialResponses,
  };
  const targeting = form.targeting ? formToFilters(form.targeting) : null;
  if (targeting && hasTargetingFilters(targeting)) body.targeting_flag_filters = targeting;
  else if (form.hadTargeting) body.remove_targeting_flag = true;
  return body;
}

/** Filters that narrow the audience (PostHog refuses a targeting flag that rolls out to everyone). */
export function hasTargetingFilters(filters: FlagFilters): boolean {
  return (filters.groups ?? []).some((group) => (group.properties ?? []).length > 0 || (group.rollout_percentage !== null && group.rollout_percentage !== undefined && group.rollout_percentage < 100));
}

// ---- branching --------------------------------------------------------------------------------

export type BranchingKind = 'next_question' | 'end' | 'specific_question' | 'response_based';

/** Question indexes inside a branching after the questions moved: `map[old] = new` (or null: removed → next question). */
function remapBranching(branching: unknown, map: Array<number | null>): unknown {
  if (!isObject(branching)) return branching;
  if (branching.type === 'specific_question' && typeof branching.index === 'number') {
    const moved = map[branching.index];
    return moved === null || moved === undefined ? { type: 'next_question' } : { ...branching, index: moved };
  }
  if (branching.type === 'response_based' && isObject(branching.responseValues)) {
    const values: Json = {};
    for (const [answer, target] of Object.entries(branching.responseValues)) {
      if (typeof target === 'number') {
        const moved = map[target];
        if (moved !== null && moved !== undefined) values[answer] = moved;
      } else values[answer] = target;
    }
    return { ...branching, responseValues: values };
  }
  return branching;
}

function applyMap(questions: QuestionForm[], map: Array<number | null>): QuestionForm[] {
  return questions.map((question) =>
    'branching' in question.value ? { uid: question.uid, value: { ...question.value, branching: remapBranching(question.value.branching, map) } } : question,
  );
}

/** The questions with one moved from `from` to `to`; branching targets follow their questions. */
export function moveQuestion(questions: QuestionForm[], from: number, to: number): QuestionForm[] {
  if (from === to || to < 0 || to >= questions.length) return questions;
  const order = questions.map((_, index) => index);
  const [moved] = order.splice(from, 1);
  order.splice(to, 0, moved);
  const map: Array<number | null> = [];
  order.forEach((oldIndex, newIndex) => {
    map[oldIndex] = newIndex;
  });
  return applyMap(
    order.map((oldIndex) => questions[oldIndex]),
    map,
  );
}

/** The questions without one; branching to it goes to the next question instead. */
export function removeQuestion(questions: QuestionForm[], index: number): QuestionForm[] {
  const map = questions.map((_, i) => (i < index ? i : i === index ? null : i - 1));
  return applyMap(
    questions.filter((_, i) => i !== index),
    map,
  );
}

/** What a rating or choice question's answers are called in `responseValues` (PostHog's keys). */
export function responseBuckets(question: Json): Array<{ key: string; label: string }> {
  const type = questionType(question);
  if (type === 'single_choice' && Array.isArray(question.choices)) {
    return question.choices.map((choice, index) => ({ key: String(index), label: String(choice) }));
  }
  if (type === 'rating') {
    const scale = Number(question.scale);
    if (scale === 10) {
      return [
        { key: 'detractors', label: 'Detractors (0–6)' },
        { key: 'passives', label: 'Passives (7–8)' },
        { key: 'promoters', label: 'Promoters (9–10)' },
      ];
    }
    if (scale === 3) {
      return [
        { key: 'negative', label: 'Negative (1)' },
        { key: 'neutral', label: 'Neutral (2)' },
        { key: 'positive', label: 'Positive (3)' },
      ];
    }
    if (scale === 5) {
      return [
        { key: 'negative', label: 'Negative (1–2)' },
        { key: 'neutral', label: 'Neutral (3)' },
        { key: 'positive', label: 'Positive (4–5)' },
      ];
    }
    return [
      { key: 'negative', label: 'Negative (1–3)' },
      { key: 'neutral', label: 'Neutral (4)' },
      { key: 'positive', label: 'Positive (5–7)' },
    ];
  }
  return [];
}

// ---- checks before sending ----------------------------------------------------------------------

export interface SurveyIssue {
  /** `name`, `questions__<index>`, `appearance`, `conditions`, … */
  path: string;
  message: string;
}

export function surveyIssues(form: SurveyForm): SurveyIssue[] {
  const issues: SurveyIssue[] = [];
  if (form.name.trim() === '') issues.push({ path: 'name', message: 'A survey needs a name.' });
  if (form.questions.length === 0) issues.push({ path: 'questions', message: 'Add at least one question.' });
  form.questions.forEach((question, index) => {
    const path = `questions__${index}`;
    const value = question.value;
    if (typeof value.question !== 'string' || value.question.trim() === '') issues.push({ path, message: 'Question text is required.' });
    if (Array.isArray(value.choices)) {
      if (value.choices.length === 0) issues.push({ path, message: 'Add at least one choice.' });
      else if (value.choices.some((choice) => typeof choice !== 'string' || choice.trim() === '')) issues.push({ path, message: 'Choices cannot be empty.' });
    }
    if (questionType(value) === 'link' && typeof value.link === 'string' && !/^(https:\/\/[^/\s]+|mailto:[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$)/.test(value.link)) {
      issues.push({ path, message: 'The link must start with https:// and a host, or be a mailto: address.' });
    }
  });
  if (form.appearance?.shuffleQuestions === true && form.questions.some((question) => question.value.branching !== undefined && question.value.branching !== null)) {
    issues.push({ path: 'appearance', message: 'Question shuffling and branching cannot be used together: turn one of them off.' });
  }
  if (typeof form.conditions?.linkedFlagVariant === 'string' && form.linkedFlagId === null) {
    issues.push({ path: 'conditions', message: 'Choose the linked flag, or no variant.' });
  }
  if ((form.samplingLimit ?? 0) > 0 && !form.samplingInterval) issues.push({ path: 'response_sampling_interval', message: 'Set the interval the limit applies to.' });
  return issues;
}

/** Where a server error belongs: its `attr`, or for questions the number in its text ("Question 2: …"). */
export function serverIssuePath(attr: string | null, message: string): string | null {
  if (attr === null) {
    if (/shuffling/i.test(message)) return 'appearance';
    if (/linkedFlagVariant|variant/i.test(message)) return 'conditions';
    if (/Targeting Feature Flag/i.test(message)) return 'targeting_flag_filters';
    if (/Feature Flag with this ID/i.test(message)) return 'linked_flag_id';
    if (/targeting/i.test(message)) return 'targeting_flag_filters';
    return null;
  }
  if (attr === 'questions') {
    const match = /Question (\d+)/.exec(message);
    return match ? `questions__${Number(match[1]) - 1}` : 'questions';
  }
  return attr.split('__')[0];
}
