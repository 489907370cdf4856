/** The event-definition API as the console's pages use it. */
import { HISTORY_PAGE_SIZE } from '../activity/history-page.ts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, withQuery } from '../api/client.ts';
import type { ActivityPage, Paginated } from '../api/types.ts';
import { useProject, useProjectPath } from '../shell/session.ts';
import type { EventDefinition, EventSchema, GeneratedCode, PropertyDefinition, PropertyGroup, Volume } from './types.ts';

export const DEFINITION_PAGE_SIZE = 50;

export interface DefinitionListParams {
  search?: string;
  verified?: string;
  exclude_hidden?: string;
  tags?: string;
  offset?: number;
}

export const definitionKeys = {
  all: (projectId: number) => ['event-definitions', projectId] as const,
  one: (projectId: number, id: string) => ['event-definitions', projectId, 'one', id] as const,
};

export function useDefinitionList(params: DefinitionListParams) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: [...definitionKeys.all(project.id), 'list', params],
    queryFn: ({ signal }) =>
      api.get<Paginated<EventDefinition>>(
        withQuery(path('event_definitions/'), { ...params, tags: params.tags ? JSON.stringify(params.tags.split(',').map((tag) => tag.trim()).filter(Boolean)) : undefined, limit: DEFINITION_PAGE_SIZE }),
        signal,
      ),
    placeholderData: (previous) => previous,
  });
}

export function useDefinition(id: string) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({ queryKey: definitionKeys.one(project.id, id), queryFn: ({ signal }) => api.get<EventDefinition>(path(`event_definitions/${id}/`), signal) });
}

export function useUpdateDefinition(id: string) {
  const project = useProject();
  const path = useProjectPath();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (changes: Record<string, unknown>) => api.patch<EventDefinition>(path(`event_definitions/${id}/`), changes),
    onSuccess: (saved) => {
      client.setQueryData(definitionKeys.one(project.id, id), saved);
      void client.invalidateQueries({ queryKey: definitionKeys.all(project.id) });
    },
  });
}

export function useVolume(id: string) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({ queryKey: [...definitionKeys.one(project.id, id), 'volume'], queryFn: ({ signal }) => api.get<Volume>(path(`event_definitions/${id}/volume/`), signal) });
}

/** The event properties seen with this event (ingestion records which properties came with which event). */
export function useEventProperties(name: string) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: ['property-definitions', project.id, 'of-event', name],
    queryFn: ({ signal }) =>
      api.get<Paginated<PropertyDefinition>>(withQuery(path('property_definitions/'), { type: 'event', event_names: JSON.stringify([name]), filter_by_event_names: 'true', limit: 500 }), signal),
  });
}

export function useEventSchemas(definitionId: string) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: [...definitionKeys.one(project.id, definitionId), 'schemas'],
    queryFn: ({ signal }) => api.get<Paginated<EventSchema>>(withQuery(path('event_schemas/'), { event_definition: definitionId, limit: 100 }), signal),
  });
}

export function usePropertyGroups() {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: ['schema-property-groups', project.id],
    queryFn: ({ signal }) => api.get<Paginated<PropertyGroup>>(withQuery(path('schema_property_groups/'), { limit: 1000 }), signal),
  });
}

export function useGeneratedCode(language: 'typescript' | 'python' | 'golang') {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: [...definitionKeys.all(project.id), 'code', language],
    queryFn: ({ signal }) => api.get<GeneratedCode>(path(`event_definitions/${language}/`), signal),
  });
}

export function useDefinitionActivity(id: string | null, page: number) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: [...definitionKeys.all(project.id), 'activity', id, page],
    queryFn: ({ signal }) => api.get<ActivityPage>(withQuery(path(id ? `event_definitions/${id}/activity/` : 'event_definitions/activity/'), { page, limit: HISTORY_PAGE_SIZE }), signal),
    placeholderData: (previous) => previous,
  });
}
