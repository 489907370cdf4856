import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { api } from '../api/client.ts';
import { errorMessage, fieldError, isApiError } from '../api/errors.ts';
import { useResetSession } from '../shell/session.ts';
import { Button, LinkButton } from '../ui/Button.tsx';
import { Field, Input } from '../ui/Field.tsx';
import { Notice, Spinner } from '../ui/Feedback.tsx';
import { useDocumentTitle } from '../ui/Page.tsx';
import { AuthCard } from './AuthCard.tsx';

interface InviteInfo {
  id: string;
  target_email: string;
  first_name: string;
  organization_name: string;
  /** Signed in as the invited address: joining needs no name or password. */
  existing_account?: boolean;
}

/** `/signup/<invite id>`: the invited person sets their name and a password, and is signed in. */
export function SignupPage({ inviteId }: { inviteId: string }) {
  useDocumentTitle('Join');
  const reset = useResetSession();
  const [, navigate] = useLocation();
  const invite = useQuery({
    queryKey: ['signup', inviteId],
    queryFn: ({ signal }) => api.get<InviteInfo>(`/api/signup/${encodeURIComponent(inviteId)}/`, signal),
    retry: false,
  });
  const [firstName, setFirstName] = useState<string | null>(null);
  const [password, setPassword] = useState('');
  const name = firstName ?? invite.data?.first_name ?? '';
  const join = useMutation({
    mutationFn: () =>
      api.post(`/api/signup/${encodeURIComponent(inviteId)}/`, invite.data?.existing_account ? {} : { first_name: name, password }),
    onSuccess: async () => {
      await reset();
      navigate('/feature_flags', { replace: true });
    },
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    join.mutate();
  };

  if (invite.isPending) return <AuthCard title="Join Bellwether"><Spinner label="Checking your invite…" /></AuthCard>;
  if (invite.isError) {
    return (
      <AuthCard title="This invite cannot be used">
        <Notice tone="error">
          {errorMessage(invite.error)}
          {isApiError(invite.error) && invite.error.code === 'account_exists' ? null : ' Ask whoever invited you for a new invite.'}
        </Notice>
        <LinkButton href="/">Go to the sign-in page</LinkButton>
      </AuthCard>
    );
  }
  const error = join.error;
  if (invite.data.existing_account) {
    return (
      <AuthCard title={`Join ${invite.data.organization_name}`}>
        <p className="muted auth-note">
          You are signed in as <strong>{invite.data.target_email}</strong>, the address this invite is for.
        </p>
        {error ? <Notice tone="error">{errorMessage(error)}</Notice> : null}
        <Button variant="primary" loading={join.isPending} onClick={() => join.mutate()}>
          Join {invite.data.organization_name}
        </Button>
      </AuthCard>
    );
  }
  const general = error && !fieldError(error, 'password') && !fieldError(error, 'first_name') ? errorMessage(error) : null;
  return (
    <AuthCard title={`Join ${invite.data.organization_name}`}>
      <p className="muted auth-note">
        You were invited as <strong>{invite.data.target_email}</strong>. Choose your name and a password.
      </p>
      <form className="stack" onSubmit={onSubmit} noValidate>
        {general ? <Notice tone="error">{general}</Notice> : null}
        <Field label="First name" error={fieldError(error, 'first_name')}>
          {(control) => <Input {...control} name="first_name" autoComplete="given-name" value={name} onChange={(e) => setFirstName(e.target.value)} />}
        </Field>
        <Field label="Password" hint="At least 8 characters and hard to guess: a few uncommon words work well." error={fieldError(error, 'password')}>
          {(control) => (
            <Input {...control} type="password" name="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
          )}
        </Field>
        <Button type="submit" variant="primary" loading={join.isPending} disabled={!password}>
          Join and sign in
        </Button>
      </form>
    </AuthCard>
  );
}
