import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, withQuery } from '../api/client.ts';
import { errorMessage, fieldError } from '../api/errors.ts';
import type { Paginated, PersonalApiKey } from '../api/types.ts';
import { useMe, useTeams } from '../shell/session.ts';
import { formatDate, formatRelative } from '../lib/format.ts';
import { Badge } from '../ui/Badge.tsx';
import { Button } from '../ui/Button.tsx';
import { CopyField } from '../ui/CopyField.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Checkbox, Field, Input, Select } from '../ui/Field.tsx';
import { Card } from '../ui/Page.tsx';
import { Table, type Column } from '../ui/Table.tsx';
import { useToast } from '../ui/Toast.tsx';
import { SCOPE_OBJECT_NAMES, scopeObjectLabel, scopesFromChoices, type ScopeAccess } from './key-scopes.ts';

const KEYS = ['personal-api-keys'] as const;
type Reach = 'all' | 'projects' | 'organization';

function CreateKeyDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const me = useMe();
  const teams = useTeams();
  const client = useQueryClient();
  const [label, setLabel] = useState('');
  const [allAccess, setAllAccess] = useState(false);
  const [access, setAccess] = useState<Record<string, ScopeAccess>>({ feature_flag: 'read' });
  const [reach, setReach] = useState<Reach>('all');
  const [projects, setProjects] = useState<number[]>(me.team ? [me.team.id] : []);
  const create = useMutation({
    mutationFn: () =>
      api.post<PersonalApiKey>('/api/personal_api_keys/', {
        label: label.trim(),
        scopes: scopesFromChoices(allAccess, access),
        scoped_teams: reach === 'projects' ? projects : null,
        scoped_organizations: reach === 'organization' && me.organization ? [me.organization.id] : null,
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: KEYS }),
  });
  const close = () => {
    setLabel('');
    setAllAccess(false);
    setAccess({ feature_flag: 'read' });
    setReach('all');
    create.reset();
    onClose();
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const error = create.error;
  const placed = fieldError(error, 'label') || fieldError(error, 'scopes') || fieldError(error, 'scoped_teams') || fieldError(error, 'scoped_organizations');
  const scopes = scopesFromChoices(allAccess, access);
  return (
    <Dialog
      open={open}
      onClose={close}
      size="lg"
      title={create.isSuccess ? 'Your new key' : 'Create a personal API key'}
      footer={
        create.isSuccess ? (
          <Button variant="primary" onClick={close}>
            I have copied it
          </Button>
        ) : (
          <>
            <Button onClick={close}>Cancel</Button>
            <Button variant="primary" type="submit" form="key-form" loading={create.isPending} disabled={!label.trim() || scopes.length === 0 || (reach === 'projects' && projects.length === 0)}>
              Create key
            </Button>
          </>
        )
      }
    >
      {create.isSuccess ? (
        <>
          <Notice tone="warning">Copy the key now. It is stored hashed: it will never be shown again.</Notice>
          <CopyField label={`Key “${create.data.label}”`} value={create.data.value ?? ''} hint="Send it as: Authorization: Bearer <key>" />
        </>
      ) : (
        <form id="key-form" className="stack" onSubmit={onSubmit} noValidate>
          {error && !placed ? <Notice tone="error">{errorMessage(error)}</Notice> : null}
          <Field label="Label" hint="What the key is for, e.g. “CI deploys” (at most 40 characters)." error={fieldError(error, 'label')}>
            {(control) => <Input {...control} autoFocus maxLength={40} value={label} onChange={(event) => setLabel(event.target.value)} />}
          </Field>
          <fieldset className="fieldset">
            <legend className="field-label">Scopes</legend>
            <Checkbox label="All access" hint="Every scope, including managing keys, projects and organizations." checked={allAccess} onChange={(event) => setAllAccess(event.target.checked)} />
            {!allAccess ? (
              <div className="scope-grid">
                {SCOPE_OBJECT_NAMES.map((object) => (
                  <Field key={object} label={scopeObjectLabel(object)}>
                    {(control) => (
                      <Select
                        {...control}
                        options={[
                          { value: 'none', label: 'No access' },
                          { value: 'read', label: 'Read' },
                          { value: 'write', label: 'Read and write' },
                        ]}
                        value={access[object] ?? 'none'}
                        onChange={(event) => setAccess({ ...access, [object]: event.target.value as ScopeAccess })}
                      />
                    )}
                  </Field>
                ))}
              </div>
            ) : null}
            {fieldError(error, 'scopes') ? <div className="field-error">{fieldError(error, 'scopes')}</div> : null}
          </fieldset>
          <fieldset className="fieldset">
            <legend className="field-label">Where it works</legend>
            <div className="stack-sm">
              {(
                [
                  ['all', 'Everywhere you have access'],
                  ['organization', `Only the organization ${me.organization?.name ?? ''}`],
                  ['projects', 'Only chosen projects'],
                ] as Array<[Reach, string]>
              ).map(([value, text]) => (
                <label key={value} className="radio">
                  <input type="radio" name="key-reach" checked={reach === value} onChange={() => setReach(value)} /> {text}
                </label>
              ))}
            </div>
            {reach === 'projects' ? (
              <div className="row">
                {teams.map((team) => (
                  <Checkbox
                    key={team.id}
                    label={team.name}
                    checked={projects.includes(team.id)}
                    onChange={(event) => setProjects(event.target.checked ? [...projects, team.id] : projects.filter((id) => id !== team.id))}
                  />
                ))}
              </div>
            ) : null}
            {fieldError(error, 'scoped_teams') || fieldError(error, 'scoped_organizations') ? (
              <div className="field-error">{fieldError(error, 'scoped_teams') ?? fieldError(error, 'scoped_organizations')}</div>
            ) : null}
          </fieldset>
        </form>
      )}
    </Dialog>
  );
}

export function ApiKeysSettings() {
  const client = useQueryClient();
  const toast = useToast();
  const teams = useTeams();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<PersonalApiKey | null>(null);
  const keys = useQuery({
    queryKey: KEYS,
    queryFn: ({ signal }) => api.get<Paginated<PersonalApiKey>>(withQuery('/api/personal_api_keys/', { limit: 1000 }), signal),
  });
  const revoke = useMutation({
    mutationFn: (key: PersonalApiKey) => api.delete(`/api/personal_api_keys/${key.id}/`),
    onSuccess: () => {
      toast.show('Key revoked: it stopped working.');
      setRevoking(null);
    },
    onSettled: () => client.invalidateQueries({ queryKey: KEYS }),
  });
  const projectName = (id: number) => teams.find((team) => team.id === id)?.name ?? `project ${id}`;
  const columns: Column<PersonalApiKey>[] = [
    {
      key: 'label',
      header: 'Key',
      render: (key) => (
        <div className="list-cell">
          <strong>{key.label}</strong>
          <span className="mono small muted">{key.mask_value}</span>
        </div>
      ),
    },
    {
      key: 'scopes',
      header: 'Scopes',
      render: (key) => (
        <span className="tag-list">
          {key.scopes.map((scope) => (
            <Badge key={scope} tone={scope === '*' ? 'warning' : 'neutral'}>
              {scope === '*' ? 'All access' : scope}
            </Badge>
          ))}
        </span>
      ),
    },
    {
      key: 'reach',
      header: 'Works in',
      wideOnly: true,
      render: (key) =>
        key.scoped_teams?.length
          ? key.scoped_teams.map(projectName).join(', ')
          : key.scoped_organizations?.length
            ? 'One organization'
            : 'Everywhere',
    },
    { key: 'last_used', header: 'Last used', wideOnly: true, render: (key) => formatRelative(key.last_used_at) },
    { key: 'created', header: 'Created', wideOnly: true, render: (key) => formatDate(key.created_at) },
    {
      key: 'revoke',
      header: <span className="visually-hidden">Actions</span>,
      align: 'right',
      render: (key) => (
        <Button size="sm" variant="ghost" onClick={() => setRevoking(key)}>
          Revoke
        </Button>
      ),
    },
  ];
  return (
    <Card
      title="Personal API keys"
      actions={
        <Button size="sm" variant="primary" onClick={() => setCreating(true)}>
          Create key
        </Button>
      }
    >
      <p className="muted">Keys let scripts and servers use the API as you, limited to the scopes and projects you choose.</p>
      {keys.isPending ? (
        <Spinner />
      ) : keys.isError ? (
        <ErrorNotice error={keys.error} onRetry={() => void keys.refetch()} />
      ) : keys.data.results.length === 0 ? (
        <EmptyState title="No keys yet">Create one for each script or server, so you can revoke one without breaking the others.</EmptyState>
      ) : (
        <Table caption="Personal API keys" columns={columns} rows={keys.data.results} rowKey={(key) => key.id} />
      )}
      <CreateKeyDialog open={creating} onClose={() => setCreating(false)} />
      <Dialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        title={`Revoke “${revoking?.label ?? ''}”?`}
        footer={
          <>
            <Button onClick={() => setRevoking(null)}>Cancel</Button>
            <Button variant="danger" loading={revoke.isPending} onClick={() => revoking && revoke.mutate(revoking)}>
              Revoke key
            </Button>
          </>
        }
      >
        <p>Anything using this key stops working at once.</p>
        {revoke.isError ? <Notice tone="error">{errorMessage(revoke.error)}</Notice> : null}
      </Dialog>
    </Card>
  );
}
