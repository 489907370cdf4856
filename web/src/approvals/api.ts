/** Change requests and approval policies (`/change_requests/`, `/approval_policies/`) as the console uses them. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, withQuery } from '../api/client.ts';
import type { AnswerOf, ItemOf } from '../api/types.ts';
import { useProject, useProjectPath } from '../shell/session.ts';

export type ChangeRequest = ItemOf<'change_requests_list'>;
export type ApprovalPolicy = ItemOf<'approval_policies_list'>;
export type Decision = AnswerOf<'change_requests_approve_create'>;
type ChangeRequestPage = AnswerOf<'change_requests_list'>;
type PolicyPage = AnswerOf<'approval_policies_list'>;

/** Open: nothing decided yet (pending), or approved and waiting for its scheduled time. */
export const OPEN_STATES = 'pending,approved';
export const PAST_STATES = 'applied,rejected,expired,failed';

export const approvalKeys = {
  all: (projectId: number) => ['change-requests', projectId] as const,
  list: (projectId: number, query: Record<string, string | number>) => ['change-requests', projectId, query] as const,
  policies: (projectId: number) => ['approval-policies', projectId] as const,
};

export function useChangeRequests(query: Record<string, string | number>, options: { refetchInterval?: number } = {}) {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: approvalKeys.list(project.id, query),
    queryFn: ({ signal }) => api.get<ChangeRequestPage>(withQuery(path('change_requests/'), query), signal),
    placeholderData: (previous) => previous,
    ...options,
  });
}

/** The flag's open change requests (a banner on its page). */
export const useOpenRequestsForFlag = (flagId: number) =>
  useChangeRequests({ resource_type: 'feature_flag', resource_id: String(flagId), state: OPEN_STATES, limit: 20 });

export type DecisionKind = 'approve' | 'reject' | 'cancel';

export function useDecide() {
  const project = useProject();
  const path = useProjectPath();
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, kind, reason }: { id: string; kind: DecisionKind; reason?: string }) =>
      api.post<Decision>(path(`change_requests/${id}/${kind}/`), reason ? { reason } : {}),
    onSettled: () => {
      void client.invalidateQueries({ queryKey: approvalKeys.all(project.id) });
      // An approval that reached the quorum changed the flag.
      void client.invalidateQueries({ queryKey: ['flags', project.id] });
    },
  });
}

export function usePolicies() {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: approvalKeys.policies(project.id),
    queryFn: ({ signal }) => api.get<PolicyPage>(withQuery(path('approval_policies/'), { limit: 100 }), signal),
  });
}

export type PolicyBody = Record<string, unknown>;

export function useSavePolicy() {
  const project = useProject();
  const path = useProjectPath();
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string | null; body: PolicyBody }) =>
      id === null ? api.post<ApprovalPolicy>(path('approval_policies/'), body) : api.patch<ApprovalPolicy>(path(`approval_policies/${id}/`), body),
    onSuccess: () => client.invalidateQueries({ queryKey: approvalKeys.policies(project.id) }),
  });
}

export function useDeletePolicy() {
  const project = useProject();
  const path = useProjectPath();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete(path(`approval_policies/${id}/`)),
    onSuccess: () => client.invalidateQueries({ queryKey: approvalKeys.policies(project.id) }),
  });
}
