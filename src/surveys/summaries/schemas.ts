import { Type } from 'typebox';

export const SurveyParams = Type.Object({ project_id: Type.String(), id: Type.String({ description: 'the survey id (uuid)' }) });

export const SummarizeQuery = Type.Object({
  question_id: Type.Optional(Type.String({ description: "the question's id; wins over question_index" })),
  question_index: Type.Optional(Type.String({ description: "the question's position (0-based); not an integer = not given" })),
});

/**
 * The body is documented as the survey's writable fields; only `force_refresh` is read, anything else
 * is accepted and ignored.
 */
export const SummaryBody = Type.Object(
  { force_refresh: Type.Optional(Type.Boolean({ description: 'recompute instead of answering the stored summary' })) },
  { additionalProperties: true },
);

export const SummarizeResponse = Type.Object({
  content: Type.String({ description: 'Markdown: overview, **Key Themes:** lines `- **theme** (Common|Moderate|Rare): …`, **Key Insight:**' }),
  response_count: Type.Integer(),
  generated_at: Type.String({ format: 'date-time' }),
  trace_id: Type.Optional(Type.String({ description: 'a uuid for this computation; absent when there was nothing to analyse' })),
  cached: Type.Boolean(),
});

export const HeadlineResponse = Type.Object({
  headline: Type.String({ description: 'one plain sentence of at most 20 words' }),
  responses_sampled: Type.Integer(),
  has_more: Type.Boolean(),
});
