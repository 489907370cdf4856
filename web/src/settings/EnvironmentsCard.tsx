import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import { errorMessage, fieldError } from '../api/errors.ts';
import type { Project } from '../api/types.ts';
import { useOrganizationRights } from '../shell/rights.ts';
import { ME_KEY } from '../shell/session.ts';
import { RestrictedButton } from '../ui/Restricted.tsx';
import { environmentPath } from '../shell/EnvironmentScope.tsx';
import { LinkButton } from '../ui/Button.tsx';
import { CopyField } from '../ui/CopyField.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Field, Input } from '../ui/Field.tsx';
import { Card } from '../ui/Page.tsx';

interface Page<T> {
  results: T[];
}

/** The environments of the current project, each with its colour; admins add one (its own tokens, the secret shown once). */
export function EnvironmentsCard({ project }: { project: Project }) {
  const rights = useOrganizationRights();
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [color, setColor] = useState('#f5a623');
  const [added, setAdded] = useState<Project | null>(null);
  const list = useQuery({
    queryKey: ['environments', project.project_id],
    queryFn: ({ signal }) => api.get<Page<Project>>(`/api/projects/${project.project_id}/environments/?limit=100`, signal),
  });
  const create = useMutation({
    mutationFn: () => api.post<Project>(`/api/projects/${project.project_id}/environments/`, { name, color }),
    onSuccess: (created) => {
      setName('');
      setAdded(created);
      void client.invalidateQueries({ queryKey: ['environments', project.project_id] });
      void client.invalidateQueries({ queryKey: ME_KEY });
    },
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Card title="Environments">
      {list.isPending ? <Spinner /> : list.isError ? <ErrorNotice error={list.error} onRetry={() => void list.refetch()} /> : (
        <ul className="environment-list">
          {list.data.results.map((environment) => (
            <li key={environment.id} className="row">
              <span className="environment-swatch" style={{ background: environment.color ?? 'transparent' }} aria-hidden="true" />
              <span className="grow">{environment.name}</span>
              <span className="muted mono">{environment.id === project.id ? 'shown now' : `id ${environment.id}`}</span>
            </li>
          ))}
        </ul>
      )}
      {(
        <form className="row evaluate-form" onSubmit={onSubmit}>
          <Field label="New environment" className="grow" error={fieldError(create.error, 'name')}>
            {(control) => <Input {...control} value={name} placeholder="Staging" onChange={(event) => setName(event.target.value)} />}
          </Field>
          <Field label="Colour" error={fieldError(create.error, 'color')}>
            {(control) => <input {...control} type="color" className="input color-input" value={color} onChange={(event) => setColor(event.target.value)} />}
          </Field>
          <RestrictedButton type="submit" className="align-end" reason={rights.manageProject} loading={create.isPending} disabled={name.trim() === ''}>
            Add environment
          </RestrictedButton>
        </form>
      )}
      {create.isError && !fieldError(create.error, 'name') && !fieldError(create.error, 'color') ? <Notice tone="error">{errorMessage(create.error)}</Notice> : null}
      {added?.secret_api_token ? <CopyField label="The new environment's secret token (shown once)" value={added.secret_api_token} /> : null}
      {added ? (
        <div>
          <LinkButton href={`~${environmentPath(added.id)}`}>Open {added.name}</LinkButton>
        </div>
      ) : null}
    </Card>
  );
}
