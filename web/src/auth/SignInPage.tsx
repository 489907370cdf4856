import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import { errorMessage, fieldError, isApiError } from '../api/errors.ts';
import { useResetSession } from '../shell/session.ts';
import { Button, buttonClass } from '../ui/Button.tsx';
import { Link } from 'wouter';
import { ssoErrorMessage, useLoginMethods } from './login-methods.ts';
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
  const methods = useLoginMethods();
  const sso = methods.data?.sso ?? null;
  const [ssoError] = useState(() => ssoErrorMessage(window.location.search));
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
      {ssoError ? <Notice tone="error">{ssoError}</Notice> : null}
      {sso ? (
        <div className="stack">
          {/* A navigation, not a request: the provider's pages come next. */}
          <a className={`${buttonClass('primary')} sso-button`} href={sso.login_url}>
            {sso.button_text}
          </a>
          {sso.enforced_domains.length ? (
            <p className="muted small">Addresses at {sso.enforced_domains.join(', ')} sign in this way only.</p>
          ) : null}
          <p className="auth-divider">
            <span>or with a password</span>
          </p>
        </div>
      ) : null}
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
        <Button type="submit" variant={sso ? 'secondary' : 'primary'} loading={signIn.isPending} disabled={!email || !password}>
          Sign in
        </Button>
        <Link href="/forgot" className="auth-link">
          Forgot password?
        </Link>
      </form>
      <p className="muted auth-note">
        First start? Use the one-time sign-in link the server printed, or run <code>npm run sign-in-link</code> on the server.
      </p>
    </AuthCard>
  );
}
