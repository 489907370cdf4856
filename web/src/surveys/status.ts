/** A survey's status as PostHog's list shows it. Pure. */

export type SurveyStatus = 'draft' | 'running' | 'completed' | 'archived';

export function surveyStatus(survey: { start_date: string | null; end_date: string | null; archived: boolean }, now: number = Date.now()): SurveyStatus {
  if (survey.archived) return 'archived';
  if (!survey.start_date) return 'draft';
  if (survey.end_date && Date.parse(survey.end_date) <= now) return 'completed';
  return 'running';
}

export const STATUS_LABELS: Record<SurveyStatus, string> = { draft: 'Draft', running: 'Running', completed: 'Completed', archived: 'Archived' };
export const STATUS_TONES: Record<SurveyStatus, 'neutral' | 'success' | 'info' | 'warning'> = { draft: 'neutral', running: 'success', completed: 'info', archived: 'warning' };

export const SURVEY_TYPE_LABELS: Record<string, string> = {
  popover: 'Popover',
  widget: 'Feedback button',
  api: 'API',
  external_survey: 'Hosted link',
};
