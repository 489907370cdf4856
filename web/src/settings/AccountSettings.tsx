import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useSearch } from 'wouter';
import { api } from '../api/client.ts';
import { errorMessage, fieldError } from '../api/errors.ts';
import { ME_KEY, useMe } from '../shell/session.ts';
import { Button } from '../ui/Button.tsx';
import { Notice } from '../ui/Feedback.tsx';
import { Field, Input } from '../ui/Field.tsx';
import { Card } from '../ui/Page.tsx';
import { useToast } from '../ui/Toast.tsx';

function useUpdateMe(onDone: () => void) {
  const client = useQueryClient();
  const toast = useToast();
  return useMutation({
    mutationFn: (changes: Record<string, unknown>) => api.patch('/api/users/@me/', changes),
    onSuccess: () => {
      toast.show('Saved.');
      onDone();
      return client.invalidateQueries({ queryKey: ME_KEY });
    },
  });
}

function ProfileForm() {
  const me = useMe();
  const [firstName, setFirstName] = useState(me.first_name);
  const [lastName, setLastName] = useState(me.last_name);
  const [email, setEmail] = useState(me.email);
  const [current, setCurrent] = useState('');
  const update = useUpdateMe(() => setCurrent(''));
  const emailChanged = email.trim() !== me.email;
  // A new address needs the current password (when there is one): a stolen session cannot take the account.
  const asksPassword = emailChanged && me.has_password !== false;
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ first_name: firstName, last_name: lastName, email: email.trim(), ...(asksPassword ? { current_password: current } : {}) });
  };
  const error = update.error;
  const placed =
    fieldError(error, 'first_name') || fieldError(error, 'last_name') || fieldError(error, 'email') || fieldError(error, 'current_password');
  const changed = firstName !== me.first_name || lastName !== me.last_name || emailChanged;
  return (
    <Card title="Your details">
      <form className="stack" onSubmit={onSubmit} noValidate>
        {error && !placed ? <Notice tone="error">{errorMessage(error)}</Notice> : null}
        <div className="form-grid">
          <Field label="First name" error={fieldError(error, 'first_name')}>
            {(control) => <Input {...control} autoComplete="given-name" value={firstName} onChange={(event) => setFirstName(event.target.value)} />}
          </Field>
          <Field label="Last name" error={fieldError(error, 'last_name')}>
            {(control) => <Input {...control} autoComplete="family-name" value={lastName} onChange={(event) => setLastName(event.target.value)} />}
          </Field>
          <Field label="E-mail" error={fieldError(error, 'email')} hint="You sign in with it.">
            {(control) => <Input {...control} type="email" autoComplete="email" value={email} onChange={(event) => setEmail(event.target.value)} />}
          </Field>
          {asksPassword ? (
            <Field label="Current password" error={fieldError(error, 'current_password')} hint="Needed to change your e-mail address.">
              {(control) => (
                <Input {...control} type="password" autoComplete="current-password" value={current} onChange={(event) => setCurrent(event.target.value)} />
              )}
            </Field>
          ) : null}
        </div>
        <div className="form-actions">
          <Button type="submit" variant="primary" loading={update.isPending} disabled={!changed}>
            Save details
          </Button>
        </div>
      </form>
    </Card>
  );
}

function PasswordForm() {
  const me = useMe();
  const settingFirst = me.has_password === false;
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const update = useUpdateMe(() => {
    setCurrent('');
    setPassword('');
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate(settingFirst ? { password } : { password, current_password: current });
  };
  const error = update.error;
  const placed = fieldError(error, 'password') || fieldError(error, 'current_password');
  return (
    <Card title={settingFirst ? 'Set a password' : 'Change your password'}>
      <form className="stack" onSubmit={onSubmit} noValidate>
        {settingFirst ? <p className="muted">You signed in with a one-time link. Set a password to sign in with your e-mail next time.</p> : null}
        {error && !placed ? <Notice tone="error">{errorMessage(error)}</Notice> : null}
        <div className="form-grid">
          {!settingFirst ? (
            <Field label="Current password" error={fieldError(error, 'current_password')}>
              {(control) => <Input {...control} type="password" autoComplete="current-password" value={current} onChange={(event) => setCurrent(event.target.value)} />}
            </Field>
          ) : null}
          <Field label="New password" hint="At least 8 characters and hard to guess: a few uncommon words work well. Your other sessions end." error={fieldError(error, 'password')}>
            {(control) => <Input {...control} type="password" autoComplete="new-password" value={password} onChange={(event) => setPassword(event.target.value)} />}
          </Field>
        </div>
        <div className="form-actions">
          <Button type="submit" variant="primary" loading={update.isPending} disabled={!password || (!settingFirst && !current)}>
            {settingFirst ? 'Set password' : 'Change password'}
          </Button>
        </div>
      </form>
    </Card>
  );
}

export function AccountSettings() {
  const me = useMe();
  const welcome = new URLSearchParams(useSearch()).get('welcome') === '1';
  return (
    <div className="stack">
      {welcome && me.has_password === false ? <Notice tone="success">Welcome to Bellwether. Set a password below so you can sign in again with your e-mail.</Notice> : null}
      <ProfileForm />
      <PasswordForm />
    </div>
  );
}
