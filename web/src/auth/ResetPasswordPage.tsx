import { useRef, useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { api } from '../api/client.ts';
import { errorMessage, fieldError } from '../api/errors.ts';
import { useResetSession } from '../shell/session.ts';
import { Button, LinkButton } from '../ui/Button.tsx';
import { Field, Input } from '../ui/Field.tsx';
import { Notice } from '../ui/Feedback.tsx';
import { useDocumentTitle } from '../ui/Page.tsx';
import { AuthCard } from './AuthCard.tsx';

/** The token of `/reset#token=…`, taken out of the address bar at once (it stays in this page's memory). */
function takeToken(): string | null {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (token) window.history.replaceState(null, '', window.location.pathname);
  return token;
}

/** `/reset#token=…`: a new password; every other session ends and this browser is signed in. */
export function ResetPasswordPage() {
  useDocumentTitle('Set a new password');
  const token = useRef<string | null | undefined>(undefined);
  if (token.current === undefined) token.current = takeToken();
  const reset = useResetSession();
  const [, navigate] = useLocation();
  const [password, setPassword] = useState('');
  const submit = useMutation({
    mutationFn: () => api.post('/api/reset/complete/', { token: token.current, password }),
    onSuccess: async () => {
      await reset();
      navigate('/', { replace: true });
    },
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit.mutate();
  };
  if (!token.current) {
    return (
      <AuthCard title="Set a new password">
        <Notice tone="error">This link has no reset token. Open the whole link from the e-mail, including the part after #.</Notice>
        <LinkButton href="/forgot">Ask for a new link</LinkButton>
      </AuthCard>
    );
  }
  const error = submit.error;
  const tokenError = fieldError(error, 'token');
  return (
    <AuthCard title="Set a new password">
      <form className="stack" onSubmit={onSubmit} noValidate>
        <p className="muted">Choose a new password. Every other session of yours ends, and you are signed in here.</p>
        {tokenError ? (
          <Notice tone="error">
            {tokenError} <a href="/forgot">Ask for a new link.</a>
          </Notice>
        ) : error && !fieldError(error, 'password') ? (
          <Notice tone="error">{errorMessage(error)}</Notice>
        ) : null}
        <Field label="New password" error={fieldError(error, 'password')} hint="At least 8 characters, hard to guess: a few unrelated words work well.">
          {(control) => (
            <Input {...control} type="password" autoComplete="new-password" autoFocus value={password} onChange={(e) => setPassword(e.target.value)} />
          )}
        </Field>
        <Button type="submit" variant="primary" loading={submit.isPending} disabled={!password}>
          Set password and sign in
        </Button>
      </form>
    </AuthCard>
  );
}
