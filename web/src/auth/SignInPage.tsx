import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import { errorMessage, fieldError, isApiError } from '../api/errors.ts';
import { useResetSession } from '../shell/session.ts';
import { Button } from '../ui/Button.tsx';
import { Field, Input } from '../ui/Field.tsx';
import { Notice } from '../ui/Feedback.tsx';
import { useDocumentTitle } from '../ui/Page.tsx';
import { AuthCard } from './AuthCard.tsx';

function signInMessage(error: unknown): string {
  if (isApiError(error) && error.status === 429) {
    return error.retryAfter ? `Too many failed attempts. Try again in ${error.retryAfter} seconds.` : errorMessage(error);
  }
  return errorMessage(error);
}

/** What a person who is not signed in sees at any console address; they stay on it after signing in. */
export function SignInPage() {
  useDocumentTitle('Sign in');
  const reset = useResetSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useMutation({
    mutationFn: () => api.post('/api/login/', { email, password }),
    onSuccess: () => reset(),
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  const error = signIn.error;
  const generalError = error && !fieldError(error, 'email') && !fieldError(error, 'password') ? signInMessage(error) : null;
  return (
    <AuthCard title="Sign in to Bellwether">
      <form className="stack" onSubmit={onSubmit} noValidate>
        {generalError ? <Notice tone="error">{generalError}</Notice> : null}
        <Field label="E-mail" error={fieldError(error, 'email')}>
          {(control) => (
            <Input {...control} type="email" name="email" autoComplete="username" required autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />
          )}
        </Field>
        <Field label="Password" error={fieldError(error, 'password')}>
          {(control) => (
            <Input {...control} type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
          )}
        </Field>
        <Button type="submit" variant="primary" loading={signIn.isPending} disabled={!email || !password}>
          Sign in
        </Button>
      </form>
      <p className="muted auth-note">
        First start? Use the one-time sign-in link the server printed, or run <code>npm run sign-in-link</code> on the server.
      </p>
    </AuthCard>
  );
}
