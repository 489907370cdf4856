import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import { errorMessage, fieldError, isApiError } from '../api/errors.ts';
import { Button, LinkButton } from '../ui/Button.tsx';
import { Field, Input } from '../ui/Field.tsx';
import { Notice, Spinner } from '../ui/Feedback.tsx';
import { useDocumentTitle } from '../ui/Page.tsx';
import { AuthCard } from './AuthCard.tsx';
import { useLoginMethods } from './login-methods.ts';

function requestMessage(error: unknown): string {
  if (isApiError(error) && error.status === 429 && error.retryAfter) return `Too many requests. Try again in ${error.retryAfter} seconds.`;
  return errorMessage(error);
}

/** `/forgot`: a reset link by e-mail when the server sends mail; else who to ask. */
export function ForgotPasswordPage() {
  useDocumentTitle('Forgot password');
  const methods = useLoginMethods();
  const [email, setEmail] = useState('');
  const request = useMutation({ mutationFn: () => api.post('/api/reset/', { email: email.trim() }) });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    request.mutate();
  };
  const back = <LinkButton href="/">Back to sign-in</LinkButton>;
  if (methods.isPending) return <AuthCard title="Forgot password"><Spinner /></AuthCard>;
  if (!methods.data?.password_reset_by_email) {
    return (
      <AuthCard title="Forgot password">
        <p>This server does not send e-mail. Ask an admin of your organization for a password reset link: they make one in Settings → Members.</p>
        {back}
      </AuthCard>
    );
  }
  if (request.isSuccess) {
    return (
      <AuthCard title="Check your e-mail">
        <p>
          If <strong className="break-anywhere">{email.trim()}</strong> has an account here, a link to set a new password is on its way. It
          works once, within an hour.
        </p>
        {back}
      </AuthCard>
    );
  }
  const error = request.error;
  return (
    <AuthCard title="Forgot password">
      <form className="stack" onSubmit={onSubmit} noValidate>
        <p className="muted">We will e-mail you a link to set a new password.</p>
        {error && !fieldError(error, 'email') ? <Notice tone="error">{requestMessage(error)}</Notice> : null}
        <Field label="E-mail" error={fieldError(error, 'email')}>
          {(control) => <Input {...control} type="email" autoComplete="username" autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />}
        </Field>
        <Button type="submit" variant="primary" loading={request.isPending} disabled={!email.trim()}>
          Send reset link
        </Button>
      </form>
      {back}
    </AuthCard>
  );
}
