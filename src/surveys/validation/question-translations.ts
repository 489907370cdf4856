import { checkChoiceItems } from './choices.ts';
import { questionsError } from '../errors.ts';
import { checkLink } from './links.ts';
import { isPlainObject, type JsonObject } from './python.ts';
import { sanitizeText } from './sanitize.ts';

/** The translatable text fields of a question; any other key of a translation is dropped. */
const TEXT_FIELDS = ['question', 'description', 'buttonText', 'lowerBoundLabel', 'upperBoundLabel'];

/**
 * A question's `translations`. `number` is the question's 1-based position,
 * as PostHog prints it. `questionChoices` are the question's own (checked) choices, or null when it
 * has none: then translated choices are dropped. Languages left empty are removed.
 */
export function checkQuestionTranslations(raw: unknown, number: number, questionChoices: string[] | null): Record<string, JsonObject> {
  if (!isPlainObject(raw)) throw questionsError(`Question ${number}: translations must be an object`);
  const cleaned = Object.entries(raw).map(([lang, translation]) => [lang, cleanTranslation(translation, lang, number)] as const);
  // Lengths are compared once every language passed its own checks, as PostHog does.
  for (const [lang, translation] of cleaned) {
    if (!('choices' in translation)) continue;
    if (questionChoices === null) {
      delete translation.choices;
      continue;
    }
    const count = (translation.choices as string[]).length;
    if (count !== questionChoices.length) {
      throw questionsError(
        `Question ${number}: Translation '${lang}' has ${count} choices but question has ${questionChoices.length} choices. ` +
          'Array lengths must match to avoid partial translations.',
      );
    }
  }
  return Object.fromEntries(cleaned.filter(([, translation]) => Object.keys(translation).length > 0));
}

function cleanTranslation(translation: unknown, lang: string, number: number): JsonObject {
  if (!isPlainObject(translation)) throw questionsError(`Question ${number}: Translation for '${lang}' must be an object`);
  const notAString = (field: string) =>
    questionsError(`Question ${number}: Translation '${lang}' field '${field}' must be a string`);
  const cleaned: JsonObject = {};
  for (const field of TEXT_FIELDS) {
    if (!(field in translation)) continue;
    const value = translation[field];
    if (typeof value !== 'string') throw notAString(field);
    cleaned[field] = sanitizeText(value);
  }
  if ('link' in translation) {
    if (typeof translation.link !== 'string') throw notAString('link');
    cleaned.link = checkLink(translation.link);
  }
  if ('choices' in translation) {
    if (!Array.isArray(translation.choices)) {
      throw questionsError(`Question ${number}: Translation '${lang}' field 'choices' must be a list of strings`);
    }
    cleaned.choices = checkChoiceItems(translation.choices);
  }
  return cleaned;
}
