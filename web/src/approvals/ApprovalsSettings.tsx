import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, withQuery } from '../api/client.ts';
import { errorMessage } from '../api/errors.ts';
import type { Member, Paginated } from '../api/types.ts';
import { useOrganizationRights } from '../shell/rights.ts';
import { displayName, useMe } from '../shell/session.ts';
import { Badge } from '../ui/Badge.tsx';
import { Button } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Checkbox, Field, Input, Select } from '../ui/Field.tsx';
import { Card } from '../ui/Page.tsx';
import { RestrictedButton } from '../ui/Restricted.tsx';
import { Table, type Column } from '../ui/Table.tsx';
import { useToast } from '../ui/Toast.tsx';
import { useDeletePolicy, usePolicies, useSavePolicy, type ApprovalPolicy } from './api.ts';
import { ACTION_LABELS } from './describe.ts';
import './approvals.css';
import { ACTION_KEYS, ADMIN_LEVEL, conditionText, durationDays, newPolicyForm, OWNER_LEVEL, policyBody, policyToForm, type ConditionKind, type PolicyForm } from './policy-form.ts';

function useMembers() {
  const org = useMe().organization;
  return useQuery({
    queryKey: ['members', org?.id],
    queryFn: ({ signal }) => api.get<Paginated<Member>>(withQuery(`/api/organizations/${org!.id}/members/`, { limit: 1000 }), signal),
    enabled: Boolean(org),
  });
}

function approversText(policy: ApprovalPolicy, members: Member[]): string {
  const { users, quorum } = policy.approver_config;
  const needed = `${quorum} approval${quorum === 1 ? '' : 's'}`;
  if (users.length === 0) return `${needed} from any member`;
  const names = users.map((id) => {
    const member = members.find((item) => item.user.id === id);
    return member ? displayName(member.user) : `user ${id}`;
  });
  return `${needed} from ${names.join(', ')}`;
}

function PolicyDialog({ policy, taken, onClose }: { policy: ApprovalPolicy | null; taken: string[]; onClose: () => void }) {
  const [form, setForm] = useState<PolicyForm>(() => (policy ? policyToForm(policy) : newPolicyForm(taken)));
  const save = useSavePolicy();
  const members = useMembers();
  const toast = useToast();
  const set = (changes: Partial<PolicyForm>) => setForm((current) => ({ ...current, ...changes }));
  const toggle = (list: number[], item: number, on: boolean) => (on ? [...list, item] : list.filter((value) => value !== item));
  const actionOptions = ACTION_KEYS.filter((key) => key === form.actionKey || !taken.includes(key)).map((key) => ({ value: key, label: ACTION_LABELS[key] }));
  return (
    <Dialog
      open
      size="lg"
      onClose={onClose}
      title={policy ? `Edit the policy: ${ACTION_LABELS[policy.action_key] ?? policy.action_key}` : 'New approval policy'}
      footer={
        <>
          <Button onClick={onClose}>Cancel</Button>
          <Button
            variant="primary"
            loading={save.isPending}
            onClick={() =>
              save.mutate(
                { id: policy?.id ?? null, body: policyBody(form) },
                {
                  onSuccess: () => {
                    toast.show(policy ? 'Policy saved.' : 'Policy created.');
                    onClose();
                  },
                },
              )
            }
          >
            {policy ? 'Save' : 'Create policy'}
          </Button>
        </>
      }
    >
      <div className="stack">
        <div className="form-grid">
          <Field label="Which changes" hint="Flag edits of this kind wait for approval.">
            {(control) => <Select {...control} options={actionOptions} value={form.actionKey} disabled={policy !== null} onChange={(event) => set({ actionKey: event.target.value })} />}
          </Field>
          {form.actionKey === 'feature_flag.update' ? (
            <Field label="Only when">
              {(control) => (
                <Select
                  {...control}
                  options={[
                    { value: 'any', label: 'Any rollout changes' },
                    { value: 'above', label: 'A rollout is set above…' },
                    { value: 'amount', label: 'A rollout grows by more than…' },
                  ]}
                  value={form.condition}
                  onChange={(event) => set({ condition: event.target.value as ConditionKind })}
                />
              )}
            </Field>
          ) : null}
          {form.actionKey === 'feature_flag.update' && form.condition !== 'any' ? (
            <Field label={form.condition === 'above' ? 'Percent' : 'Percentage points'}>
              {(control) => <Input {...control} type="number" min={0} max={100} value={String(form.conditionValue)} onChange={(event) => set({ conditionValue: Number(event.target.value) })} />}
            </Field>
          ) : null}
        </div>
        <div className="form-grid">
          <Field label="Approvals needed">
            {(control) => <Input {...control} type="number" min={1} max={20} value={String(form.quorum)} onChange={(event) => set({ quorum: Number(event.target.value) })} />}
          </Field>
          <Field label="Requests expire after (days)">
            {(control) => <Input {...control} type="number" min={1} max={365} value={String(form.expiresDays)} onChange={(event) => set({ expiresDays: Number(event.target.value) })} />}
          </Field>
        </div>
        <fieldset className="fieldset">
          <legend className="field-label">Who may approve</legend>
          <span className="field-hint">Tick nobody to let any member of the project approve.</span>
          {members.isPending ? <Spinner label="Loading members…" /> : null}
          {(members.data?.results ?? []).map((member) => (
            <Checkbox
              key={member.user.id}
              label={`${displayName(member.user)} (${member.user.email})`}
              checked={form.approvers.includes(member.user.id)}
              onChange={(event) => set({ approvers: toggle(form.approvers, member.user.id, event.target.checked) })}
            />
          ))}
        </fieldset>
        <fieldset className="fieldset">
          <legend className="field-label">Exceptions</legend>
          <Checkbox label="The member who asks may approve their own change" checked={form.allowSelfApprove} onChange={(event) => set({ allowSelfApprove: event.target.checked })} />
          <Checkbox label="Admins skip approval" checked={form.bypassLevels.includes(ADMIN_LEVEL)} onChange={(event) => set({ bypassLevels: toggle(form.bypassLevels, ADMIN_LEVEL, event.target.checked) })} />
          <Checkbox label="Owners skip approval" checked={form.bypassLevels.includes(OWNER_LEVEL)} onChange={(event) => set({ bypassLevels: toggle(form.bypassLevels, OWNER_LEVEL, event.target.checked) })} />
        </fieldset>
        <Checkbox label="Enabled" checked={form.enabled} onChange={(event) => set({ enabled: event.target.checked })} />
        {save.isError ? <Notice tone="error">{errorMessage(save.error)}</Notice> : null}
      </div>
    </Dialog>
  );
}

function DeletePolicy({ policy, reason }: { policy: ApprovalPolicy; reason: string | null }) {
  const [confirming, setConfirming] = useState(false);
  const remove = useDeletePolicy();
  const toast = useToast();
  const name = ACTION_LABELS[policy.action_key] ?? policy.action_key;
  return (
    <>
      <RestrictedButton size="sm" variant="ghost" reason={reason} onClick={() => setConfirming(true)} aria-label={`Delete the policy: ${name}`}>
        Delete
      </RestrictedButton>
      <Dialog
        open={confirming}
        onClose={() => setConfirming(false)}
        title="Delete this policy?"
        footer={
          <>
            <Button onClick={() => setConfirming(false)}>Cancel</Button>
            <Button
              variant="danger"
              loading={remove.isPending}
              onClick={() => remove.mutate(policy.id, { onSuccess: () => { setConfirming(false); toast.show('Policy deleted.'); } })}
            >
              Delete policy
            </Button>
          </>
        }
      >
        <p>
          “{name}” changes apply at once again. Requests already waiting keep waiting for their reviewers.
        </p>
        {remove.isError ? <Notice tone="error">{errorMessage(remove.error)}</Notice> : null}
      </Dialog>
    </>
  );
}

/** Settings → Approvals: which flag changes wait for whose approval. Admins and owners edit; others read. */
export function ApprovalsSettings() {
  const rights = useOrganizationRights();
  const policies = usePolicies();
  const members = useMembers();
  const [editing, setEditing] = useState<ApprovalPolicy | 'new' | null>(null);
  const rows = policies.data?.results ?? [];
  const taken = rows.map((policy) => policy.action_key);
  const reason = rights.manageProject;
  const full = taken.length >= ACTION_KEYS.length;
  const columns: Column<ApprovalPolicy>[] = [
    {
      key: 'action',
      header: 'Changes',
      render: (policy) => (
        <div className="list-cell">
          <span className="list-title">{ACTION_LABELS[policy.action_key] ?? policy.action_key}</span>
          <span className="muted small">
            {conditionText(policy)}
            <span className="narrow-only">{policy.enabled ? '' : ' · disabled'}</span>
          </span>
        </div>
      ),
    },
    { key: 'approvers', header: 'Approval', render: (policy) => approversText(policy, members.data?.results ?? []) },
    {
      key: 'exceptions',
      header: 'Exceptions',
      wideOnly: true,
      render: (policy) =>
        [
          policy.allow_self_approve ? 'self-approval allowed' : null,
          policy.bypass_org_membership_levels.includes(ADMIN_LEVEL) ? 'admins skip' : null,
          policy.bypass_org_membership_levels.includes(OWNER_LEVEL) ? 'owners skip' : null,
        ]
          .filter(Boolean)
          .join(', ') || '—',
    },
    { key: 'expiry', header: 'Expires after', wideOnly: true, render: (policy) => `${durationDays(policy.expires_after)} days` },
    { key: 'enabled', header: 'Status', wideOnly: true, render: (policy) => (policy.enabled ? <Badge tone="success">Enabled</Badge> : <Badge>Disabled</Badge>) },
    {
      key: 'actions',
      header: <span className="visually-hidden">Actions</span>,
      align: 'right',
      render: (policy) => (
        <div className="row policy-actions">
          <RestrictedButton size="sm" reason={reason} onClick={() => setEditing(policy)} aria-label={`Edit the policy: ${ACTION_LABELS[policy.action_key] ?? policy.action_key}`}>
            Edit
          </RestrictedButton>
          <DeletePolicy policy={policy} reason={reason} />
        </div>
      ),
    },
  ];
  return (
    <Card
      title="Approval policies"
      actions={
        <RestrictedButton variant="primary" reason={reason ?? (full ? 'Every kind of change has a policy: edit one instead.' : null)} onClick={() => setEditing('new')}>
          New policy
        </RestrictedButton>
      }
    >
      <p className="muted">
        A flag edit a policy covers is not applied at once: it becomes a change request that waits on the review page until enough members approve it.
      </p>
      {reason ? <Notice>You can read these policies; only admins and owners of the organization can change them.</Notice> : null}
      {policies.isPending ? (
        <Spinner label="Loading policies…" />
      ) : policies.isError ? (
        <ErrorNotice error={policies.error} onRetry={() => void policies.refetch()} />
      ) : (
        <Table caption="Approval policies" columns={columns} rows={rows} rowKey={(policy) => policy.id} empty="No policy: every flag change applies at once." />
      )}
      {editing ? <PolicyDialog policy={editing === 'new' ? null : editing} taken={taken} onClose={() => setEditing(null)} /> : null}
    </Card>
  );
}
