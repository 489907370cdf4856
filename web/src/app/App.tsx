import { lazy, Suspense, useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Redirect, Route, Switch } from 'wouter';
import { onUnauthenticated } from '../api/client.ts';
import { isApiError } from '../api/errors.ts';
import { ForgotPasswordPage } from '../auth/ForgotPasswordPage.tsx';
import { OneTimeSignInPage } from '../auth/OneTimeSignInPage.tsx';
import { ResetPasswordPage } from '../auth/ResetPasswordPage.tsx';
import { SignInPage } from '../auth/SignInPage.tsx';
import { SignupPage } from '../auth/SignupPage.tsx';
import { EnvironmentScope, ToCurrentEnvironment } from '../shell/EnvironmentScope.tsx';
import { Layout } from '../shell/Layout.tsx';
import { ME_KEY, useMeQuery } from '../shell/session.ts';
import { ErrorNotice, Spinner } from '../ui/Feedback.tsx';
import { ConsoleRoutes } from './routes.tsx';

// Seen only by a person without an environment: its own chunk, fetched when needed.
const NoProjectPage = lazy(() => import('./NoProjectPage.tsx').then((module) => ({ default: module.NoProjectPage })));

/** The signed-in console, or the sign-in page at the same address for a person who is not signed in. */
function SignedIn() {
  const me = useMeQuery();
  const client = useQueryClient();
  // Any 401 asks "who is signed in?" again. A question already on its way (users/@me's own 401 comes
  // here too) is awaited, not cancelled and re-sent, which would ask forever.
  useEffect(() => onUnauthenticated(() => void client.invalidateQueries({ queryKey: ME_KEY }, { cancelRefetch: false })), [client]);
  if (me.isPending) return <Spinner label="Loading Bellwether…" />;
  if (me.isError) {
    if (isApiError(me.error) && me.error.status === 401) return <SignInPage />;
    return (
      <main className="auth-page">
        <ErrorNotice error={me.error} title="The console could not reach the server" onRetry={() => void me.refetch()} />
      </main>
    );
  }
  const current = me.data.team?.id;
  return (
    <Switch>
      <Route path="/project/:environment" nest>
        {(params) => (
          <EnvironmentScope id={params.environment}>
            <Layout>
              <ConsoleRoutes />
            </Layout>
          </EnvironmentScope>
        )}
      </Route>
      <Route>
        {current === undefined ? (
          <Suspense fallback={<Spinner label="Loading…" />}>
            <NoProjectPage />
          </Suspense>
        ) : (
          <ToCurrentEnvironment environmentId={current} />
        )}
      </Route>
    </Switch>
  );
}

export function App() {
  return (
    <Switch>
      <Route path="/login/one-time" component={OneTimeSignInPage} />
      <Route path="/forgot" component={ForgotPasswordPage} />
      <Route path="/reset" component={ResetPasswordPage} />
      <Route path="/login">
        <Redirect to="/" />
      </Route>
      <Route path="/signup/:id">{(params) => <SignupPage inviteId={params.id} />}</Route>
      <Route>
        <SignedIn />
      </Route>
    </Switch>
  );
}
