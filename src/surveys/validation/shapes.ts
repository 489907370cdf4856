/**
 * The structured survey fields as the validators beside this file check them: their types here
 * (`Static`), the OpenAPI components (SurveyQuestion, SurveyAppearance, SurveyConditions) and,
 * through the generated types, the console's. Unknown keys are kept as sent, so every object takes more.
 */
import { Type, type Static, type TSchemaOptions } from 'typebox';
import { Nullable, OpenShape } from '../../kernel/http/shapes.ts';

const Text = (description?: string) => Type.String(description ? { description } : {});
const ContentType = Type.String({ enum: ['text', 'html'] });
const FreeObject = (options: TSchemaOptions = {}) => Type.Object({}, { additionalProperties: true, ...options });

const AnswerRule = Type.Object({
  type: Type.String({ enum: ['min_length', 'max_length', 'email'] }),
  value: Type.Optional(Nullable(Type.Integer({ minimum: 1 }), { description: 'the length, for min_length and max_length' })),
});

export const SurveyQuestion = OpenShape(
  'SurveyQuestion',
  {
    id: Type.Optional(Text('kept when sent; given one when absent')),
    type: Type.Optional(Type.String({ enum: ['open', 'link', 'rating', 'single_choice', 'multiple_choice'] })),
    question: Text('non-empty; HTML is sanitised'),
    description: Type.Optional(Text()),
    descriptionContentType: Type.Optional(ContentType),
    optional: Type.Optional(Type.Boolean()),
    buttonText: Type.Optional(Text()),
    choices: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'non-empty strings' })),
    hasOpenChoice: Type.Optional(Type.Boolean({ description: 'the last choice takes free text' })),
    shuffleOptions: Type.Optional(Type.Boolean()),
    link: Type.Optional(Text('https://… with a host, or mailto:someone@example.com')),
    scale: Type.Optional(Type.Integer({ description: 'rating: how many points (posthog-js shows 3, 5, 7 or 10 numbers, 3 or 5 emoji)' })),
    display: Type.Optional(Type.String({ enum: ['number', 'emoji'] })),
    lowerBoundLabel: Type.Optional(Text()),
    upperBoundLabel: Type.Optional(Text()),
    isNpsQuestion: Type.Optional(Type.Boolean()),
    validation: Type.Optional(Type.Array(AnswerRule, { description: 'open questions: answer rules' })),
    branching: Type.Optional(Nullable(FreeObject({ description: 'where to go after this question' }))),
    translations: Type.Optional(
      Type.Record(Type.String(), FreeObject(), { description: 'by language: the texts and choices' }),
    ),
  },
  {
    description:
      'One question. Every type has `question`; `choices` belong to single_choice and multiple_choice, `link` to link, ' +
      '`scale`, `display` and the bound labels to rating, `validation` to open.',
  },
);
export type SurveyQuestion = Static<typeof SurveyQuestion>;

export const SurveyAppearance = OpenShape(
  'SurveyAppearance',
  {
    thankYouMessageHeader: Type.Optional(Text('HTML is sanitised')),
    thankYouMessageDescription: Type.Optional(Text('HTML is sanitised')),
    thankYouMessageDescriptionContentType: Type.Optional(ContentType),
    thankYouMessageCloseButtonText: Type.Optional(Text('HTML is sanitised')),
    displayThankYouMessage: Type.Optional(Type.Boolean()),
    surveyPopupDelaySeconds: Type.Optional(Type.Number({ minimum: 0 })),
    shuffleQuestions: Type.Optional(Type.Boolean({ description: 'not together with question branching' })),
    whiteLabel: Type.Optional(Type.Boolean()),
    position: Type.Optional(Text()),
    backgroundColor: Type.Optional(Text()),
    submitButtonColor: Type.Optional(Text()),
    textColor: Type.Optional(Text()),
    placeholder: Type.Optional(Text()),
  },
  { description: 'How posthog-js shows the survey; stored as sent apart from the sanitised thank-you texts.' },
);
export type SurveyAppearance = Static<typeof SurveyAppearance>;

export const SurveyConditions = OpenShape(
  'SurveyConditions',
  {
    url: Type.Optional(Text()),
    urlMatchType: Type.Optional(Type.String({ description: 'icontains, exact, regex, not_regex, not_icontains, is_not' })),
    selector: Type.Optional(Text()),
    deviceTypes: Type.Optional(Type.Array(Type.String())),
    deviceTypesMatchType: Type.Optional(Text()),
    seenSurveyWaitPeriodInDays: Type.Optional(Nullable(Type.Number())),
    linkedFlagVariant: Type.Optional(Nullable(Type.String(), { description: 'only people who get this variant of the linked flag' })),
    events: Type.Optional(Nullable(FreeObject({ description: '`{values: [{name}], repeatedActivation}`' }))),
    actions: Type.Optional(Nullable(FreeObject())),
  },
  { description: 'Where and to whom posthog-js shows the survey; stored as sent.' },
);
export type SurveyConditions = Static<typeof SurveyConditions>;

/** The three fields as a body sends them and an answer carries them; null is allowed in each. */
export const SurveyQuestions = Nullable(Type.Array(SurveyQuestion));
export const NullableAppearance = Nullable(SurveyAppearance);
export const NullableConditions = Nullable(SurveyConditions);
