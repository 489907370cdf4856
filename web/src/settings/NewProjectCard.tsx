import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import { errorMessage, fieldError } from '../api/errors.ts';
import type { Project } from '../api/types.ts';
import { environmentPath } from '../shell/EnvironmentScope.tsx';
import { useOrganizationRights } from '../shell/rights.ts';
import { ME_KEY, useMe } from '../shell/session.ts';
import { LinkButton } from '../ui/Button.tsx';
import { CopyField } from '../ui/CopyField.tsx';
import { Notice } from '../ui/Feedback.tsx';
import { Field, Input } from '../ui/Field.tsx';
import { Card } from '../ui/Page.tsx';
import { RestrictedButton } from '../ui/Restricted.tsx';

/** A new project of the organization, with its first environment (its tokens; the secret shown once). Admins and owners. */
export function NewProjectCard() {
  const me = useMe();
  const rights = useOrganizationRights();
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<Project | null>(null);
  const create = useMutation({
    mutationFn: () => api.post<Project>(`/api/organizations/${me.organization?.id ?? '@current'}/projects/`, { name: name.trim() }),
    onSuccess: (project) => {
      setName('');
      setCreated(project);
      void client.invalidateQueries({ queryKey: ME_KEY });
    },
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (rights.manageProject !== null) return; // Enter in the field of a form the person may not send
    setCreated(null);
    create.mutate();
  };
  return (
    <Card title="New project">
      <p className="muted">A project groups environments (production, staging…); it starts with one environment, with tokens of its own.</p>
      <form className="row evaluate-form" onSubmit={onSubmit}>
        <Field label="Project name" className="grow" error={fieldError(create.error, 'name')}>
          {(control) => <Input {...control} value={name} maxLength={200} placeholder="Mobile app" onChange={(event) => setName(event.target.value)} />}
        </Field>
        <RestrictedButton type="submit" className="align-end" reason={rights.manageProject} loading={create.isPending} disabled={name.trim() === ''}>
          Create project
        </RestrictedButton>
      </form>
      {create.isError && !fieldError(create.error, 'name') ? <Notice tone="error">{errorMessage(create.error)}</Notice> : null}
      {created ? (
        <div className="stack">
          <Notice tone="success">
            Project {created.name} created. Its first environment opens on the get-started checklist.
          </Notice>
          {created.secret_api_token ? <CopyField label={`${created.name}'s secret token (shown once)`} value={created.secret_api_token} /> : null}
          <div>
            <LinkButton href={`~${environmentPath(created.id)}`} variant="primary">
              Open {created.name}
            </LinkButton>
          </div>
        </div>
      ) : null}
    </Card>
  );
}
