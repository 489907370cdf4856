/** The survey API's answers, as the console reads them: derived from the generated API types (see api/types.ts). */
import type { AnswerOf, ItemOf, Schemas } from '../api/types.ts';

export type Json = Record<string, unknown>;

export type MinimalFlag = Schemas['MinimalFeatureFlag'];
export type Survey = Schemas['Survey'];
export type SurveyQuestion = Schemas['SurveyQuestion'];
export type SurveyAppearance = Schemas['SurveyAppearance'];
export type SurveyConditions = Schemas['SurveyConditions'];

export type SurveyStats = AnswerOf<'surveys_stats_retrieve'>;
export type SurveyEventName = keyof SurveyStats['stats'];
export type EventStats = NonNullable<SurveyStats['stats'][SurveyEventName]>;

/** `GET …/surveys/{id}/responses/`: one page of responses, answers keyed by question id. */
export type ResponsesPage = AnswerOf<'surveys_responses_list'>;
export type SurveyResponseItem = ItemOf<'surveys_responses_list'>;
