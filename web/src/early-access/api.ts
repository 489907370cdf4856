import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import type { AnswerOf, ItemOf, Project } from '../api/types.ts';
import { useProject, useProjectPath } from '../shell/session.ts';

export type EarlyAccessFeature = ItemOf<'early_access_feature_list'>;
export type EnrolledPersons = AnswerOf<'early_access_feature_enrolled_persons_retrieve'>;

export const STAGES = ['draft', 'concept', 'alpha', 'beta', 'general-availability', 'archived'] as const;
export const STAGE_LABELS: Record<string, string> = {
  draft: 'Draft',
  concept: 'Concept',
  alpha: 'Alpha',
  beta: 'Beta',
  'general-availability': 'General availability',
  archived: 'Archived',
};
/** The stages whose flag serves the persons who opted in. */
export const ENROLLING = new Set(['alpha', 'beta', 'general-availability']);

export function useFeatures() {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: ['early-access', project.id, 'list'],
    queryFn: ({ signal }) => api.get<AnswerOf<'early_access_feature_list'>>(path('early_access_feature/?limit=200'), signal),
  });
}

export function useEnrolled(id: string) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: ['early-access', project.id, 'enrolled', id],
    queryFn: ({ signal }) => api.get<EnrolledPersons>(path(`early_access_feature/${id}/enrolled_persons/`), signal),
  });
}

export function useProjectToken() {
  const current = useProject();
  return useQuery({
    queryKey: ['project', current.id],
    queryFn: ({ signal }) => api.get<Project>(`/api/projects/${current.id}/`, signal),
  });
}
