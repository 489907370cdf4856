import type { SchemaObject } from './schema-object.ts';

const text = (description?: string): SchemaObject => ({ type: 'string', ...(description ? { description } : {}) });
const contentType: SchemaObject = { type: 'string', enum: ['text', 'html'] };

/**
 * The structured survey fields as surveys/validation checks them (unknown keys are kept as sent,
 * so every object allows more). Documentation only: validation stays in surveys/validation.
 */
export const SURVEY_SCHEMAS: Readonly<Record<string, SchemaObject>> = {
  SurveyQuestion: {
    type: 'object',
    description:
      'One question. Every type has `question`; `choices` belong to single_choice and multiple_choice, `link` to link, ' +
      '`scale`, `display` and the bound labels to rating, `validation` to open.',
    required: ['question'],
    additionalProperties: true,
    properties: {
      id: text('kept when sent; given one when absent'),
      type: { type: 'string', enum: ['open', 'link', 'rating', 'single_choice', 'multiple_choice'] },
      question: text('non-empty; HTML is sanitised'),
      description: text(),
      descriptionContentType: contentType,
      optional: { type: 'boolean' },
      buttonText: text(),
      choices: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'non-empty strings' },
      hasOpenChoice: { type: 'boolean', description: 'the last choice takes free text' },
      shuffleOptions: { type: 'boolean' },
      link: text('https://… with a host, or mailto:someone@example.com'),
      scale: { type: 'integer', description: 'rating: how many points (posthog-js shows 3, 5, 7 or 10 numbers, 3 or 5 emoji)' },
      display: { type: 'string', enum: ['number', 'emoji'] },
      lowerBoundLabel: text(),
      upperBoundLabel: text(),
      isNpsQuestion: { type: 'boolean' },
      validation: {
        type: 'array',
        description: 'open questions: answer rules',
        items: {
          type: 'object',
          required: ['type'],
          properties: {
            type: { type: 'string', enum: ['min_length', 'max_length', 'email'] },
            value: { type: 'integer', minimum: 1, nullable: true, description: 'the length, for min_length and max_length' },
          },
        },
      },
      branching: { type: 'object', nullable: true, additionalProperties: true, description: 'where to go after this question' },
      translations: { type: 'object', additionalProperties: { type: 'object', additionalProperties: true }, description: 'by language: the texts and choices' },
    },
  },
  SurveyAppearance: {
    type: 'object',
    nullable: true,
    description: 'How posthog-js shows the survey; stored as sent apart from the sanitised thank-you texts.',
    additionalProperties: true,
    properties: {
      thankYouMessageHeader: text('HTML is sanitised'),
      thankYouMessageDescription: text('HTML is sanitised'),
      thankYouMessageDescriptionContentType: contentType,
      thankYouMessageCloseButtonText: text('HTML is sanitised'),
      displayThankYouMessage: { type: 'boolean' },
      surveyPopupDelaySeconds: { type: 'number', minimum: 0 },
      shuffleQuestions: { type: 'boolean', description: 'not together with question branching' },
      whiteLabel: { type: 'boolean' },
      position: text(),
      backgroundColor: text(),
      submitButtonColor: text(),
      textColor: text(),
      placeholder: text(),
    },
  },
  SurveyConditions: {
    type: 'object',
    nullable: true,
    description: 'Where and to whom posthog-js shows the survey; stored as sent.',
    additionalProperties: true,
    properties: {
      url: text(),
      urlMatchType: { type: 'string', description: 'icontains, exact, regex, not_regex, not_icontains, is_not' },
      selector: text(),
      deviceTypes: { type: 'array', items: { type: 'string' } },
      deviceTypesMatchType: text(),
      seenSurveyWaitPeriodInDays: { type: 'number', nullable: true },
      linkedFlagVariant: { type: 'string', nullable: true, description: 'only people who get this variant of the linked flag' },
      events: { type: 'object', nullable: true, additionalProperties: true, description: '`{values: [{name}], repeatedActivation}`' },
      actions: { type: 'object', nullable: true, additionalProperties: true },
    },
  },
};
