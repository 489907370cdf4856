/**
 * The address says which environment the console shows (`/project/{id}/…`, PostHog's addresses):
 * an address naming another environment than the person's current one makes it current
 * (`set_current_team`) before the pages render, so every page keeps reading `users/@me`'s team.
 * An address without the prefix is sent to the same page of the current environment.
 */
import { useEffect, useRef, type ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Redirect, useLocation, useSearch } from 'wouter';
import { api } from '../api/client.ts';
import { isApiError } from '../api/errors.ts';
import { LinkButton } from '../ui/Button.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { ErrorNotice, Spinner } from '../ui/Feedback.tsx';
import { useDocumentTitle } from '../ui/Page.tsx';
import { useMe, useResetSession } from './session.ts';

/** `path` (an address inside the console, `/feature_flags/12`) in environment `id`. */
export function environmentPath(id: number, path = '/'): string {
  return `/project/${id}${path === '/' ? '' : path}`;
}

/** The same address and query in the current environment (the redirect of an address written before environments had addresses). */
export function ToCurrentEnvironment({ environmentId }: { environmentId: number }) {
  const [location] = useLocation();
  const search = useSearch();
  return <Redirect to={`${environmentPath(environmentId, location)}${search ? `?${search}` : ''}`} replace />;
}

function OutOfReach({ id, currentId }: { id: string; currentId: number }) {
  useDocumentTitle('Environment not found');
  return (
    <main className="auth-page">
      <EmptyState
        title="This environment is not one you can see"
        action={
          <LinkButton href={`~${environmentPath(currentId, '/feature_flags')}`} variant="primary">
            Go to your current environment
          </LinkButton>
        }
      >
        The address names environment {id}. It does not exist, or it belongs to an organization you are not a member of. Ask an admin
        of its organization to invite you.
      </EmptyState>
    </main>
  );
}

/** Renders `children` once the environment the address names is the person's current one. */
export function EnvironmentScope({ id, children }: { id: string; children: ReactNode }) {
  const me = useMe();
  const reset = useResetSession();
  const wanted = /^\d{1,10}$/.test(id) ? Number(id) : null;
  const switchTo = useMutation({
    mutationFn: async (environment: number) => {
      await api.patch('/api/users/@me/', { set_current_team: environment });
      await reset();
    },
  });
  // One attempt per address: a refusal stays on screen instead of being asked again on every render.
  const tried = useRef<number | null>(null);
  const current = me.team?.id ?? null;
  const needsSwitch = wanted !== null && wanted !== current;
  useEffect(() => {
    // Shown: another tab switching the person's current environment later is answered again.
    if (!needsSwitch) tried.current = null;
    if (!needsSwitch || tried.current === wanted || switchTo.isPending) return;
    tried.current = wanted;
    switchTo.mutate(wanted);
  }, [needsSwitch, wanted, switchTo]);

  if (wanted === null) return <OutOfReach id={id} currentId={current ?? 0} />;
  if (!needsSwitch) return <>{children}</>;
  if (switchTo.isError) {
    const refused = isApiError(switchTo.error) && (switchTo.error.status === 400 || switchTo.error.status === 403 || switchTo.error.status === 404);
    if (refused) return <OutOfReach id={id} currentId={current ?? 0} />;
    return (
      <main className="auth-page">
        <ErrorNotice
          error={switchTo.error}
          title="The environment could not be opened"
          onRetry={() => {
            tried.current = null;
            switchTo.reset();
          }}
        />
      </main>
    );
  }
  const name = me.organization?.teams?.find((team) => team.id === wanted)?.name;
  return <Spinner label={name ? `Opening ${name}…` : 'Opening the environment…'} />;
}
