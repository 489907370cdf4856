import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import { errorMessage, fieldError } from '../api/errors.ts';
import type { Project } from '../api/types.ts';
import { useOrganizationRights } from '../shell/rights.ts';
import { ME_KEY, useMe, useProject } from '../shell/session.ts';
import { Button } from '../ui/Button.tsx';
import { CopyField } from '../ui/CopyField.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Field, Input } from '../ui/Field.tsx';
import { Card } from '../ui/Page.tsx';
import { RestrictedButton } from '../ui/Restricted.tsx';
import { TabPanel, Tabs } from '../ui/Tabs.tsx';
import { useToast } from '../ui/Toast.tsx';
import { DeleteProjectCard } from './DeleteProjectCard.tsx';
import { EnvironmentsCard } from './EnvironmentsCard.tsx';
import { NewProjectCard } from './NewProjectCard.tsx';
import { posthogJsSnippet, posthogNodeSnippet } from './snippets.ts';

type TokenAction = 'reset_token' | 'rotate_secret_token';

const TOKEN_ACTIONS: Record<TokenAction, { title: string; warning: string; done: string }> = {
  reset_token: {
    title: 'Reset the project token?',
    warning: 'Every SDK using the current project token stops sending events and getting flags until it is given the new one.',
    done: 'The project token was reset.',
  },
  rotate_secret_token: {
    title: 'Rotate the secret token?',
    warning: 'A new secret token is made. Servers reading flag definitions with the old one must be given the new one.',
    done: 'The secret token was rotated.',
  },
};

function TokenActionButton({ project, action }: { project: Project; action: TokenAction }) {
  const rights = useOrganizationRights();
  const [open, setOpen] = useState(false);
  const [revealed, setRevealed] = useState<string | null>(null);
  const client = useQueryClient();
  const toast = useToast();
  const run = useMutation({
    mutationFn: () => api.patch<Project>(`/api/projects/${project.id}/${action}/`, {}),
    onSuccess: (updated) => {
      toast.show(TOKEN_ACTIONS[action].done);
      void client.invalidateQueries({ queryKey: ['project', project.id] });
      void client.invalidateQueries({ queryKey: ME_KEY });
      const secret = updated?.secret_api_token;
      if (action === 'rotate_secret_token' && secret && !secret.includes('...')) setRevealed(secret);
      else setOpen(false);
    },
  });
  const copy = TOKEN_ACTIONS[action];
  return (
    <>
      <RestrictedButton size="sm" reason={rights.manageProject} onClick={() => setOpen(true)}>
        {action === 'reset_token' ? 'Reset token' : 'Rotate secret token'}
      </RestrictedButton>
      <Dialog
        open={open}
        onClose={() => {
          setOpen(false);
          setRevealed(null);
          run.reset();
        }}
        title={revealed ? 'Your new secret token' : copy.title}
        footer={
          revealed ? (
            <Button variant="primary" onClick={() => { setOpen(false); setRevealed(null); }}>
              Done
            </Button>
          ) : (
            <>
              <Button onClick={() => setOpen(false)}>Cancel</Button>
              <Button variant="danger" loading={run.isPending} onClick={() => run.mutate()}>
                {action === 'reset_token' ? 'Reset' : 'Rotate'}
              </Button>
            </>
          )
        }
      >
        {revealed ? (
          <>
            <Notice tone="warning">Copy it now: it is stored hashed and will not be shown again.</Notice>
            <CopyField label="Secret token" value={revealed} />
          </>
        ) : (
          <>
            <p>{copy.warning}</p>
            {run.isError ? <Notice tone="error">{errorMessage(run.error)}</Notice> : null}
          </>
        )}
      </Dialog>
    </>
  );
}

export function ProjectSettings() {
  const current = useProject();
  const me = useMe();
  const rights = useOrganizationRights();
  const client = useQueryClient();
  const toast = useToast();
  const project = useQuery({
    queryKey: ['project', current.id],
    queryFn: ({ signal }) => api.get<Project>(`/api/environments/${current.id}/`, signal),
  });
  const [name, setName] = useState<string | null>(null);
  const [color, setColor] = useState<string | null>(null);
  const [snippet, setSnippet] = useState('js');
  const rename = useMutation({
    mutationFn: (changes: { name?: string; color?: string }) => api.patch<Project>(`/api/environments/${current.id}/`, changes),
    onSuccess: () => {
      toast.show('Environment saved.');
      setName(null);
      setColor(null);
      void client.invalidateQueries({ queryKey: ['project', current.id] });
      void client.invalidateQueries({ queryKey: ME_KEY });
    },
  });
  if (project.isPending) return <Spinner />;
  if (project.isError) return <ErrorNotice error={project.error} onRetry={() => void project.refetch()} />;
  const data = project.data;
  const origin = window.location.origin;
  const onRename = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate({ ...(name !== null ? { name } : {}), ...(color !== null ? { color } : {}) });
  };
  return (
    <div className="stack">
      {rights.manageProject ? (
        <Notice tone="info">
          You are a member of {me.organization?.name ?? 'this organization'}: creating projects and environments, resetting the project
          token, rotating the secret token and deleting the project are for its admins and owners.
        </Notice>
      ) : null}
      <Card title="Environment">
        <form className="row evaluate-form" onSubmit={onRename}>
          <Field label="Environment name" className="grow" error={fieldError(rename.error, 'name') ?? (rename.isError && !fieldError(rename.error, 'name') ? errorMessage(rename.error) : null)}>
            {(control) => <Input {...control} value={name ?? data.name} onChange={(event) => setName(event.target.value)} />}
          </Field>
          <Field label="Colour" error={fieldError(rename.error, 'color')}>
            {(control) => (
              <input {...control} type="color" className="input color-input" value={color ?? data.color ?? '#9b9b9b'} onChange={(event) => setColor(event.target.value)} />
            )}
          </Field>
          <Button type="submit" className="align-end" loading={rename.isPending} disabled={(name === null || name === data.name) && (color === null || color === data.color)}>
            Save
          </Button>
        </form>
        <dl className="definition-list">
          <dt>Environment id</dt>
          <dd className="mono">{data.id}</dd>
          <dt>Project id</dt>
          <dd className="mono">{data.project_id}</dd>
        </dl>
      </Card>
      <Card title="Project token" actions={<TokenActionButton project={data} action="reset_token" />}>
        <CopyField label="Project token" value={data.api_token} hint="Public: SDKs send it to send events and get flags. Safe in a web page." />
      </Card>
      <Card title="Secret token" actions={<TokenActionButton project={data} action="rotate_secret_token" />}>
        <p className="muted">
          Lets a server read flag definitions for local evaluation without a personal API key. Shown only when it is made:{' '}
          <code>{data.secret_api_token ?? 'none yet'}</code>
        </p>
      </Card>
      <Card title="Use it in your app">
        <p className="muted">These snippets point PostHog's own SDKs at this server.</p>
        <Tabs
          tabs={[
            { id: 'js', label: 'posthog-js (browser)' },
            { id: 'node', label: 'posthog-node (server)' },
          ]}
          selected={snippet}
          onSelect={setSnippet}
          label="SDK"
          idPrefix="snippet"
        />
        <TabPanel idPrefix="snippet" id={snippet}>
          <CopyField
            label={snippet === 'js' ? 'posthog-js set-up' : 'posthog-node set-up'}
            multiline
            value={snippet === 'js' ? posthogJsSnippet(origin, data.api_token) : posthogNodeSnippet(origin, data.api_token)}
          />
        </TabPanel>
      </Card>
      <EnvironmentsCard project={data} />
      <NewProjectCard />
      <DeleteProjectCard project={data} />
    </div>
  );
}
