import { isPlainObject, type JsonObject } from './python.ts';
import { sanitizeText } from './sanitize.ts';
import { translationsError } from '../errors.ts';

/** The survey-level texts a translation may carry; other keys are dropped. */
const TRANSLATABLE = ['name', 'description', 'thankYouMessageHeader', 'thankYouMessageDescription', 'thankYouMessageCloseButtonText'];

/**
 * Survey-level `translations` (attr `translations`): `{lang: {field: text}}`, texts
 * sanitised, unknown fields dropped, languages left empty removed. Null clears them.
 */
export function checkSurveyTranslations(raw: unknown): JsonObject | null {
  if (raw === null) return null;
  if (!isPlainObject(raw)) throw translationsError('Translations must be an object');
  const cleaned = Object.entries(raw).map(([lang, translation]) => {
    if (!isPlainObject(translation)) throw translationsError(`Translation for '${lang}' must be an object`);
    const texts: Array<[string, string]> = [];
    for (const field of TRANSLATABLE) {
      if (!(field in translation)) continue;
      const value = translation[field];
      if (typeof value !== 'string') throw translationsError(`Translation for '${lang}': '${field}' must be a string`);
      texts.push([field, sanitizeText(value)]);
    }
    return [lang, Object.fromEntries(texts)] as const;
  });
  return Object.fromEntries(cleaned.filter(([, texts]) => Object.keys(texts).length > 0));
}
