import { Redirect, Route, Switch } from 'wouter';
import { ActivityPage } from '../activity/ActivityPage.tsx';
import { CohortPage } from '../cohorts/CohortPage.tsx';
import { CohortsListPage } from '../cohorts/CohortsListPage.tsx';
import { FlagEditPage } from '../flags/FlagEditPage.tsx';
import { FlagPage } from '../flags/FlagPage.tsx';
import { FlagsListPage } from '../flags/FlagsListPage.tsx';
import { PersonPage } from '../persons/PersonPage.tsx';
import { PersonsListPage } from '../persons/PersonsListPage.tsx';
import { SettingsPage } from '../settings/SettingsPage.tsx';
import { LinkButton } from '../ui/Button.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';

/** A section whose pages are not in the console yet; its API is. */
function NotYetInConsole({ title, api }: { title: string; api: string }) {
  useDocumentTitle(title);
  return (
    <>
      <PageHeader title={title} />
      <EmptyState title={`${title} are not in the console yet`}>
        Everything is available through the API at <code>{api}</code> (see the <a href="/api/schema/swagger-ui/">API documentation</a>).
      </EmptyState>
    </>
  );
}

function NotFoundPage() {
  useDocumentTitle('Not found');
  return (
    <EmptyState title="There is no page here" action={<LinkButton href="/feature_flags">Go to feature flags</LinkButton>}>
      The address may be mistyped, or what it showed was removed.
    </EmptyState>
  );
}

export function ConsoleRoutes() {
  return (
    <Switch>
      <Route path="/">
        <Redirect to="/feature_flags" replace />
      </Route>
      <Route path="/feature_flags">{() => <FlagsListPage />}</Route>
      <Route path="/feature_flags/new">{() => <FlagEditPage flagId={null} />}</Route>
      <Route path="/feature_flags/:id/edit">{(params) => <FlagEditPage flagId={Number(params.id)} />}</Route>
      <Route path="/feature_flags/:id">{(params) => <FlagPage flagId={Number(params.id)} />}</Route>
      <Route path="/cohorts">{() => <CohortsListPage />}</Route>
      <Route path="/cohorts/new">{() => <CohortPage cohortId={null} />}</Route>
      <Route path="/cohorts/:id">{(params) => <CohortPage cohortId={Number(params.id)} />}</Route>
      <Route path="/persons">{() => <PersonsListPage />}</Route>
      <Route path="/persons/:id">{(params) => <PersonPage personId={params.id} />}</Route>
      <Route path="/surveys">{() => <NotYetInConsole title="Surveys" api="/api/projects/@current/surveys/" />}</Route>
      <Route path="/data-management/events">{() => <NotYetInConsole title="Event definitions" api="/api/projects/@current/event_definitions/" />}</Route>
      <Route path="/activity">{() => <ActivityPage />}</Route>
      <Route path="/settings">
        <Redirect to="/settings/project" replace />
      </Route>
      <Route path="/settings/:tab">{(params) => <SettingsPage tab={params.tab} />}</Route>
      <Route>{() => <NotFoundPage />}</Route>
    </Switch>
  );
}
