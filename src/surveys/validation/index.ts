import type { SurveyWriteBody } from '../schemas.ts';
import { checkAppearance } from './appearance.ts';
import { checkConditions } from './conditions.ts';
import type { SurveyValidationContext } from './context.ts';
import { checkPlainFields } from './fields.ts';
import { checkObjectRules } from './object-rules.ts';
import { checkQuestions } from './questions.ts';
import { checkSurveyTranslations } from './translations.ts';

export { cleanHtml, looksLikeHtml, sanitizeText } from './sanitize.ts';

/**
 * Every rule of PostHog's survey serializer (questions, translations, appearance, conditions, the
 * object-level rules) with PostHog's messages and `attr`, in PostHog's order, after the
 * schema's field-level checks passed. Answers the body to store: questions, appearance and
 * translations normalised and HTML-sanitised (question ids are assigned later, by the service).
 * Throws the first ApiError.
 */
export async function validateSurveyWrite(body: SurveyWriteBody, context: SurveyValidationContext): Promise<SurveyWriteBody> {
  const data: SurveyWriteBody = { ...body };
  // Field-level checks first, in the order of PostHog's serializer fields; DRF reports the first.
  checkPlainFields(body, context.isCreate);
  if (body.questions !== undefined) data.questions = checkQuestions(body.questions);
  if (body.conditions !== undefined) checkConditions(body.conditions);
  if (body.appearance !== undefined) data.appearance = checkAppearance(body.appearance);
  if (body.translations !== undefined) data.translations = checkSurveyTranslations(body.translations);
  await checkObjectRules(data, context);
  return data;
}
