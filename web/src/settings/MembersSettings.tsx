import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, withQuery } from '../api/client.ts';
import { errorMessage, fieldError, isApiError } from '../api/errors.ts';
import type { Invite, Member, Paginated, ResetLink } from '../api/types.ts';
import { LEVEL_CHOICES, levelName, MEMBERSHIP_LEVELS, useOrganizationRights, type OrganizationRights } from '../shell/rights.ts';
import { displayName, useMe, useResetSession } from '../shell/session.ts';
import { formatDate } from '../lib/format.ts';
import { Badge } from '../ui/Badge.tsx';
import { Button } from '../ui/Button.tsx';
import { CopyField } from '../ui/CopyField.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Field, Input, Select } from '../ui/Field.tsx';
import { Card } from '../ui/Page.tsx';
import { RestrictedButton, RestrictedSelect } from '../ui/Restricted.tsx';
import { Table, type Column } from '../ui/Table.tsx';
import { useToast } from '../ui/Toast.tsx';

const { member: MEMBER, owner: OWNER } = MEMBERSHIP_LEVELS;

/** The levels as choices; those `refusal` refuses are shown, disabled. */
function levelOptions(refusal: (level: number) => string | null) {
  return LEVEL_CHOICES.map((entry) => ({ value: String(entry.level), label: entry.name, disabled: refusal(entry.level) !== null }));
}

function InviteDialog({ orgId, rights, open, onClose }: { orgId: string; rights: OrganizationRights; open: boolean; onClose: () => void }) {
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState('');
  const [level, setLevel] = useState(String(MEMBER));
  const invite = useMutation({
    mutationFn: () => api.post<Invite>(`/api/organizations/${orgId}/invites/`, { target_email: email.trim(), first_name: firstName.trim(), level: Number(level) }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['invites', orgId] }),
  });
  const close = () => {
    setEmail('');
    setFirstName('');
    setLevel(String(MEMBER));
    invite.reset();
    onClose();
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate();
  };
  const error = invite.error;
  const placed = fieldError(error, 'target_email') || fieldError(error, 'level') || fieldError(error, 'first_name');
  return (
    <Dialog
      open={open}
      onClose={close}
      title={invite.isSuccess ? 'Invite created' : 'Invite a member'}
      footer={
        invite.isSuccess ? (
          <Button variant="primary" onClick={close}>
            Done
          </Button>
        ) : (
          <>
            <Button onClick={close}>Cancel</Button>
            <Button variant="primary" type="submit" form="invite-form" loading={invite.isPending} disabled={!email.trim()}>
              Create invite
            </Button>
          </>
        )
      }
    >
      {invite.isSuccess ? (
        <>
          <p>
            {invite.data.emailing_attempt_made
              ? `An e-mail with this link is on its way to ${invite.data.target_email}. You can also hand it over yourself.`
              : `Send this link to ${invite.data.target_email}.`}{' '}
            It lets them choose a password and join; it expires in a few days.
          </p>
          <CopyField label="Invite link" value={invite.data.invite_url} />
        </>
      ) : (
        <form id="invite-form" className="stack" onSubmit={onSubmit} noValidate>
          {error && !placed ? <Notice tone="error">{errorMessage(error)}</Notice> : null}
          <Field label="E-mail" error={fieldError(error, 'target_email')}>
            {(control) => <Input {...control} type="email" autoFocus value={email} onChange={(event) => setEmail(event.target.value)} />}
          </Field>
          <Field label="First name (optional)" error={fieldError(error, 'first_name')}>
            {(control) => <Input {...control} value={firstName} onChange={(event) => setFirstName(event.target.value)} />}
          </Field>
          <Field
            label="Level"
            error={fieldError(error, 'level')}
            hint={`Admins manage members and projects; owners also manage the organization.${rights.inviteAt(OWNER) ? ' You can invite people up to your own level.' : ''}`}
          >
            {(control) => <Select {...control} options={levelOptions(rights.inviteAt)} value={level} onChange={(event) => setLevel(event.target.value)} />}
          </Field>
        </form>
      )}
    </Dialog>
  );
}

/** How the person signs in: single sign-on, a password, both, or neither yet (a sign-in link only). */
export function signInMethods(member: Member): string {
  if (member.has_social_auth && member.has_password) return 'SSO and password';
  if (member.has_social_auth) return 'SSO';
  if (member.has_password) return 'Password';
  return 'No password yet';
}

function ResetLinkDialog({ orgId, member, onClose }: { orgId: string; member: Member | null; onClose: () => void }) {
  const make = useMutation({
    mutationFn: (target: Member) => api.post<ResetLink>(`/api/organizations/${orgId}/members/${target.user.uuid}/password_reset_link/`),
  });
  const close = () => {
    make.reset();
    onClose();
  };
  return (
    <Dialog
      open={member !== null}
      onClose={close}
      title={member ? `Password reset link for ${displayName(member.user)}` : ''}
      footer={
        make.isSuccess ? (
          <Button variant="primary" onClick={close}>
            Done
          </Button>
        ) : (
          <>
            <Button onClick={close}>Cancel</Button>
            <Button variant="primary" loading={make.isPending} onClick={() => member && make.mutate(member)}>
              Make link
            </Button>
          </>
        )
      }
    >
      {make.isSuccess ? (
        <>
          <p>Hand this link to {member?.user.email} yourself. It works once, within an hour, and signs them out everywhere else.</p>
          <CopyField label="Reset link" value={make.data.url} />
        </>
      ) : (
        <p>
          The link lets whoever opens it set a new password for {member?.user.email} within an hour. Make it only for the person
          themselves.
        </p>
      )}
      {make.isError ? <Notice tone="error">{errorMessage(make.error)}</Notice> : null}
    </Dialog>
  );
}

function notAvailable(error: unknown): boolean {
  return isApiError(error) && (error.status === 404 || error.status === 405);
}

export function MembersSettings() {
  const me = useMe();
  const org = me.organization;
  const client = useQueryClient();
  const toast = useToast();
  const [inviting, setInviting] = useState(false);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [resetting, setResetting] = useState<Member | null>(null);
  const rights = useOrganizationRights();
  const canSeeInvites = rights.manageInvites === null;
  const asRule = (member: Member) => ({ level: member.level, isMe: member.user.uuid === me.uuid });
  const members = useQuery({
    queryKey: ['members', org?.id],
    queryFn: ({ signal }) => api.get<Paginated<Member>>(withQuery(`/api/organizations/${org!.id}/members/`, { limit: 1000 }), signal),
    enabled: Boolean(org),
  });
  const invites = useQuery({
    queryKey: ['invites', org?.id],
    queryFn: ({ signal }) => api.get<Paginated<Invite>>(withQuery(`/api/organizations/${org!.id}/invites/`, { limit: 1000 }), signal),
    enabled: Boolean(org) && canSeeInvites,
  });
  const changeLevel = useMutation({
    mutationFn: ({ member, level }: { member: Member; level: number }) => api.patch(`/api/organizations/${org!.id}/members/${member.user.uuid}/`, { level }),
    onSuccess: () => toast.show('Level changed.'),
    onError: (error) => toast.show(`Not changed: ${errorMessage(error)}`, 'error'),
    onSettled: () => client.invalidateQueries({ queryKey: ['members', org?.id] }),
  });
  const resetSession = useResetSession();
  const remove = useMutation({
    mutationFn: (member: Member) => api.delete(`/api/organizations/${org!.id}/members/${member.user.uuid}/`),
    onSuccess: async (_answer, member) => {
      setRemoving(null);
      if (member.user.uuid === me.uuid) {
        // Leaving ends every session of the person, this one too: the console goes back to sign-in.
        toast.show(`You left ${org!.name}.`);
        await resetSession();
        return;
      }
      toast.show('Member removed. Their sessions ended and their keys stopped working.');
    },
    onSettled: () => client.invalidateQueries({ queryKey: ['members', org?.id] }),
  });
  const leaving = removing !== null && removing.user.uuid === me.uuid;
  const closeRemoval = () => {
    setRemoving(null);
    remove.reset();
  };
  const cancelInvite = useMutation({
    mutationFn: (invite: Invite) => api.delete(`/api/organizations/${org!.id}/invites/${invite.id}/`),
    onSuccess: () => toast.show('Invite cancelled.'),
    onError: (error) => toast.show(`Not cancelled: ${errorMessage(error)}`, 'error'),
    onSettled: () => client.invalidateQueries({ queryKey: ['invites', org?.id] }),
  });

  if (!org) return <Notice tone="warning">You are not in an organization.</Notice>;
  if (members.isPending) return <Spinner label="Loading members…" />;
  if (members.isError) {
    if (notAvailable(members.error)) return <Notice tone="info">This server does not manage members yet.</Notice>;
    return <ErrorNotice error={members.error} onRetry={() => void members.refetch()} />;
  }

  const owners = members.data.results.filter((member) => member.level === OWNER).length;
  const action = (member: Member) => (
    <div className="row-actions">
      <RestrictedButton size="sm" variant="ghost" reason={rights.resetLink(asRule(member))} onClick={() => setResetting(member)}>
        Make reset link
      </RestrictedButton>
      <RestrictedButton size="sm" variant="ghost" reason={rights.remove(asRule(member), owners)} onClick={() => setRemoving(member)}>
        {member.user.uuid === me.uuid ? 'Leave organization' : 'Remove'}
      </RestrictedButton>
    </div>
  );
  const columns: Column<Member>[] = [
    {
      key: 'who',
      header: 'Member',
      render: (member) => (
        <div className="list-cell">
          <strong>
            {displayName(member.user)}
            {member.user.uuid === me.uuid ? <span className="muted"> (you)</span> : null}
          </strong>
          <span className="muted small break-anywhere">{member.user.email}</span>
          <span className="muted small narrow-only">Signs in with: {signInMethods(member)}</span>
          {/* On a narrow window the action sits under the person instead of in a column of its own. */}
          <div className="narrow-only">{action(member)}</div>
        </div>
      ),
    },
    {
      key: 'level',
      header: 'Level',
      render: (member) => (
        <Field label={`Level of ${member.user.email}`} hideLabel>
          {(control) => (
            <RestrictedSelect
              {...control}
              reason={rights.changeLevel(asRule(member))}
              options={levelOptions((next) => rights.changeLevel(asRule(member), next))}
              value={String(member.level)}
              disabled={changeLevel.isPending}
              onChange={(event) => changeLevel.mutate({ member, level: Number(event.target.value) })}
            />
          )}
        </Field>
      ),
    },
    { key: 'sign-in', header: 'Signs in with', wideOnly: true, render: signInMethods },
    { key: 'joined', header: 'Joined', wideOnly: true, render: (member) => formatDate(member.joined_at) },
    { key: 'actions', header: <span className="visually-hidden">Actions</span>, align: 'right', wideOnly: true, render: action },
  ];
  const inviteButton = (
    <RestrictedButton variant="primary" size="sm" reason={rights.invite} onClick={() => setInviting(true)}>
      Invite a member
    </RestrictedButton>
  );

  return (
    <div className="stack">
      <Card title={`Members of ${org.name}`} actions={inviteButton}>
        {rights.invite ? (
          <p className="muted">You are a {levelName(rights.level).toLowerCase()}: admins and owners change levels, remove members and invite people.</p>
        ) : null}
        <Table caption="Members" columns={columns} rows={members.data.results} rowKey={(member) => member.user.uuid} />
      </Card>
      <Card title="Pending invites">
        {!canSeeInvites ? (
          <p className="muted">{rights.manageInvites}</p>
        ) : invites.isPending ? (
          <Spinner />
        ) : invites.isError ? (
          <ErrorNotice error={invites.error} onRetry={() => void invites.refetch()} />
        ) : invites.data.results.length === 0 ? (
          <p className="muted">No pending invites.</p>
        ) : (
          <Table
            caption="Pending invites"
            rows={invites.data.results}
            rowKey={(invite) => invite.id}
            columns={[
              { key: 'email', header: 'E-mail', render: (invite) => invite.target_email },
              { key: 'level', header: 'Level', render: (invite) => levelName(invite.level) },
              { key: 'state', header: 'State', render: (invite) => (invite.is_expired ? <Badge tone="warning">Expired</Badge> : <Badge tone="info">Waiting</Badge>) },
              {
                key: 'link',
                header: 'Link',
                wideOnly: true,
                render: (invite) => <code className="payload-preview">{invite.invite_url}</code>,
              },
              {
                key: 'cancel',
                header: <span className="visually-hidden">Actions</span>,
                align: 'right',
                render: (invite) => (
                  <Button size="sm" variant="ghost" onClick={() => cancelInvite.mutate(invite)}>
                    Cancel invite
                  </Button>
                ),
              },
            ]}
          />
        )}
      </Card>
      <InviteDialog orgId={org.id} rights={rights} open={inviting} onClose={() => setInviting(false)} />
      <ResetLinkDialog orgId={org.id} member={resetting} onClose={() => setResetting(null)} />
      <Dialog
        open={removing !== null}
        onClose={closeRemoval}
        title={leaving ? `Leave ${org.name}?` : `Remove ${removing ? displayName(removing.user) : ''}?`}
        footer={
          <>
            <Button onClick={closeRemoval}>Cancel</Button>
            <Button variant="danger" loading={remove.isPending} onClick={() => removing && remove.mutate(removing)}>
              {leaving ? 'Leave organization' : 'Remove member'}
            </Button>
          </>
        }
      >
        {leaving ? (
          <p>You lose access to every project of {org.name} at once: you are signed out, and your personal API keys no longer reach it.</p>
        ) : (
          <p>They lose access to every project of {org.name} at once: their sessions end and their personal API keys stop working.</p>
        )}
        {remove.isError ? <Notice tone="error">{errorMessage(remove.error)}</Notice> : null}
      </Dialog>
    </div>
  );
}
