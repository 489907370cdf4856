import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { api } from '../api/client.ts';
import { errorMessage } from '../api/errors.ts';
import type { Project } from '../api/types.ts';
import { useOrganizationRights } from '../shell/rights.ts';
import { environmentPath } from '../shell/EnvironmentScope.tsx';
import { useResetSession, useTeams } from '../shell/session.ts';
import { Button } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { Notice } from '../ui/Feedback.tsx';
import { Field, Input } from '../ui/Field.tsx';
import { Card } from '../ui/Page.tsx';
import { RestrictedButton } from '../ui/Restricted.tsx';
import { useToast } from '../ui/Toast.tsx';

/** The console shows one project at a time, so it keeps the organization's last one. */
const ONLY_PROJECT = "This is the organization's only project: it cannot be deleted from the console.";

/** Deleting the project and everything in it, after its name is typed. Admins and owners. */
export function DeleteProjectCard({ project }: { project: Project }) {
  // A project's first environment carries the project's id and goes only with the whole project.
  const whole = project.project_id === project.id;
  const noun = whole ? 'project' : 'environment';
  const rights = useOrganizationRights();
  const teams = useTeams();
  const reset = useResetSession();
  const toast = useToast();
  const [, navigate] = useLocation();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const remove = useMutation({
    mutationFn: () => api.delete(whole ? `/api/projects/${project.id}/` : `/api/environments/${project.id}/`),
    onSuccess: async () => {
      toast.show(`${whole ? 'Project' : 'Environment'} ${project.name} deleted.`);
      // The address names the environment just deleted: go to another one's address, which makes
      // it current (EnvironmentScope), rather than let the page ask for the one that is gone.
      const next = teams.find((team) => (whole ? team.project_id !== project.project_id : team.id !== project.id));
      if (next) {
        navigate(`~${environmentPath(next.id, '/feature_flags')}`);
        return;
      }
      await reset();
      navigate('~/feature_flags');
    },
  });
  const close = () => {
    setOpen(false);
    setTyped('');
    remove.reset();
  };
  return (
    <Card title={`Delete ${noun}`}>
      <div className="row row-between">
        <p className="muted grow">
          {whole
            ? 'Deletes the project, every environment of it, and their flags, surveys, cohorts, persons and events. It cannot be undone.'
            : 'Deletes the environment with its flags, surveys, cohorts, persons and events. It cannot be undone.'}
        </p>
        <RestrictedButton variant="danger" size="sm" reason={rights.manageProject ?? (teams.length <= 1 ? ONLY_PROJECT : null)} onClick={() => setOpen(true)}>
          {`Delete ${noun}`}
        </RestrictedButton>
      </div>
      <Dialog
        open={open}
        onClose={close}
        title={`Delete ${project.name}?`}
        footer={
          <>
            <Button onClick={close}>Cancel</Button>
            <Button variant="danger" loading={remove.isPending} disabled={typed !== project.name} onClick={() => remove.mutate()}>
              {`Delete ${noun}`}
            </Button>
          </>
        }
      >
        <p>Everything in it goes with it: SDKs sending its project token stop getting flags and surveys at once.</p>
        <Field label={`Type the ${noun}'s name, ${project.name}, to confirm`}>
          {(control) => <Input {...control} autoComplete="off" value={typed} onChange={(event) => setTyped(event.target.value)} />}
        </Field>
        {remove.isError ? <Notice tone="error">{errorMessage(remove.error)}</Notice> : null}
      </Dialog>
    </Card>
  );
}
