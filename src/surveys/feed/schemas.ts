import { Type } from 'typebox';

const FreeObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const FeedQuery = Type.Object(
  {
    token: Type.Optional(Type.String({ description: 'The project token (phc_…). Required.' })),
  },
  { additionalProperties: true },
);

export const FeedResponse = Type.Object({
  surveys: Type.Array(
    FreeObject(
      'id, name, type, linked_flag_key, targeting_flag_key, internal_targeting_flag_key (each only when the flag exists), ' +
        'questions, conditions, appearance, start_date, end_date, current_iteration, current_iteration_start_date, schedule, ' +
        'enable_partial_responses, translations (only when not empty).',
    ),
  ),
  survey_config: Type.Null(),
});

export const RemoteConfigParams = Type.Object({ token: Type.String({ description: 'The project token (phc_…).' }) });

export const RemoteConfigResponse = FreeObject('posthog-js remote config: surveys on or off, every other product off.');
