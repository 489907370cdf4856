import { lazy, Suspense, type ReactNode } from 'react';
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
import { Spinner } from '../ui/Feedback.tsx';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';

// The survey and event-definition sections load on first visit (their builder, results and charts are large).
const SurveysListPage = lazy(() => import('../surveys/SurveysListPage.tsx').then((module) => ({ default: module.SurveysListPage })));
const SurveyEditPage = lazy(() => import('../surveys/SurveyEditPage.tsx'));
const SurveyPage = lazy(() => import('../surveys/SurveyPage.tsx'));
const DefinitionsListPage = lazy(() => import('../definitions/DefinitionsListPage.tsx'));
const DefinitionPage = lazy(() => import('../definitions/DefinitionPage.tsx'));

function Lazy({ children }: { children: ReactNode }) {
  return <Suspense fallback={<Spinner label="Loading the page…" />}>{children}</Suspense>;
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
      <Route path="/surveys">{() => <Lazy><SurveysListPage /></Lazy>}</Route>
      <Route path="/surveys/new">{() => <Lazy><SurveyEditPage surveyId={null} /></Lazy>}</Route>
      <Route path="/surveys/:id/edit">{(params) => <Lazy><SurveyEditPage surveyId={params.id} /></Lazy>}</Route>
      <Route path="/surveys/:id">{(params) => <Lazy><SurveyPage surveyId={params.id} /></Lazy>}</Route>
      <Route path="/data-management/events">{() => <Lazy><DefinitionsListPage /></Lazy>}</Route>
      <Route path="/data-management/events/:id">{(params) => <Lazy><DefinitionPage definitionId={params.id} /></Lazy>}</Route>
      <Route path="/activity">{() => <ActivityPage />}</Route>
      <Route path="/settings">
        <Redirect to="/settings/project" replace />
      </Route>
      <Route path="/settings/:tab">{(params) => <SettingsPage tab={params.tab} />}</Route>
      <Route>{() => <NotFoundPage />}</Route>
    </Switch>
  );
}
