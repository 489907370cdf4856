import { Badge } from '../ui/Badge.tsx';
import { STATUS_LABELS, STATUS_TONES, surveyStatus } from './status.ts';
import type { Survey } from './types.ts';

export function SurveyStatusBadge({ survey }: { survey: Pick<Survey, 'start_date' | 'end_date' | 'archived'> }) {
  const status = surveyStatus(survey);
  return <Badge tone={STATUS_TONES[status]}>{STATUS_LABELS[status]}</Badge>;
}
