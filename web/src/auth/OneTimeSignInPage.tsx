import { useEffect, useRef } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { api } from '../api/client.ts';
import { errorMessage } from '../api/errors.ts';
import { useResetSession } from '../shell/session.ts';
import { LinkButton } from '../ui/Button.tsx';
import { Notice, Spinner } from '../ui/Feedback.tsx';
import { useDocumentTitle } from '../ui/Page.tsx';
import { AuthCard } from './AuthCard.tsx';

/** `/login/one-time#token=…`: the token stays in the fragment (never sent in a URL) and is posted once. */
export function OneTimeSignInPage() {
  useDocumentTitle('Signing in');
  const reset = useResetSession();
  const [, navigate] = useLocation();
  const token = useRef(new URLSearchParams(window.location.hash.slice(1)).get('token'));
  const signIn = useMutation({
    mutationFn: (value: string) => api.post('/api/login/one-time/', { token: value }),
    onSuccess: async () => {
      await reset();
      navigate('/settings/account?welcome=1', { replace: true });
    },
  });
  const started = useRef(false);
  useEffect(() => {
    if (started.current || !token.current) return;
    started.current = true;
    // The token is single use: take it out of the address bar and history at once.
    window.history.replaceState(null, '', window.location.pathname);
    signIn.mutate(token.current);
  }, [signIn]);

  return (
    <AuthCard title="One-time sign-in">
      {!token.current ? (
        <Notice tone="error">This link has no sign-in token. Copy the whole link the server printed, including the part after #.</Notice>
      ) : signIn.isError ? (
        <Notice tone="error">
          {/* The server's message already asks for a new link; this says only how one is made. */}
          {errorMessage(signIn.error)} Whoever runs the server makes one with <code>npm run sign-in-link -- &lt;e-mail&gt;</code>.
        </Notice>
      ) : (
        <Spinner label="Signing you in…" />
      )}
      {!signIn.isPending ? <LinkButton href="/">Go to the sign-in page</LinkButton> : null}
    </AuthCard>
  );
}
