import { lazy, Suspense, type ComponentType } from 'react';
import { Redirect, Route, Switch } from 'wouter';
import { FlagsListPage } from '../flags/FlagsListPage.tsx';
import { StartPage } from '../onboarding/StartPage.tsx';
import { LinkButton } from '../ui/Button.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { Spinner } from '../ui/Feedback.tsx';
import { useDocumentTitle } from '../ui/Page.tsx';

/** A page exported by name from a module loaded on first visit. */
function lazyNamed<Props, Name extends string>(load: () => Promise<Record<Name, ComponentType<Props>>>, name: Name) {
  return lazy(() => load().then((module) => ({ default: module[name] })));
}

// The flag list (the start page of an environment whose checklist is done) is part of the first download; every other page is
// its own chunk, fetched on first visit, so a first load parses only what the list needs.
const FlagEditPage = lazyNamed(() => import('../flags/FlagEditPage.tsx'), 'FlagEditPage');
const FlagPage = lazyNamed(() => import('../flags/FlagPage.tsx'), 'FlagPage');
const PlaygroundPage = lazyNamed(() => import('../playground/PlaygroundPage.tsx'), 'PlaygroundPage');
const OnboardingPage = lazyNamed(() => import('../onboarding/OnboardingPage.tsx'), 'OnboardingPage');
const EventsPage = lazyNamed(() => import('../events/EventsPage.tsx'), 'EventsPage');
const EarlyAccessPage = lazyNamed(() => import('../early-access/EarlyAccessPage.tsx'), 'EarlyAccessPage');
const CohortsListPage = lazyNamed(() => import('../cohorts/CohortsListPage.tsx'), 'CohortsListPage');
const CohortPage = lazyNamed(() => import('../cohorts/CohortPage.tsx'), 'CohortPage');
const PersonsListPage = lazyNamed(() => import('../persons/PersonsListPage.tsx'), 'PersonsListPage');
const PersonPage = lazyNamed(() => import('../persons/PersonPage.tsx'), 'PersonPage');
const ReviewPage = lazyNamed(() => import('../approvals/ReviewPage.tsx'), 'ReviewPage');
const ActivityPage = lazyNamed(() => import('../activity/ActivityPage.tsx'), 'ActivityPage');
const SettingsPage = lazyNamed(() => import('../settings/SettingsPage.tsx'), 'SettingsPage');
const SurveysListPage = lazyNamed(() => import('../surveys/SurveysListPage.tsx'), 'SurveysListPage');
const SurveyEditPage = lazy(() => import('../surveys/SurveyEditPage.tsx'));
const SurveyPage = lazy(() => import('../surveys/SurveyPage.tsx'));
const DefinitionsListPage = lazy(() => import('../definitions/DefinitionsListPage.tsx'));
const DefinitionPage = lazy(() => import('../definitions/DefinitionPage.tsx'));
const ExperimentsListPage = lazyNamed(() => import('../experiments/ExperimentsListPage.tsx'), 'ExperimentsListPage');
const ExperimentNewPage = lazyNamed(() => import('../experiments/ExperimentNewPage.tsx'), 'ExperimentNewPage');
const ExperimentPage = lazyNamed(() => import('../experiments/ExperimentPage.tsx'), 'ExperimentPage');


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
    <Suspense fallback={<Spinner label="Loading the page…" />}>
      <Switch>
      <Route path="/">{() => <StartPage />}</Route>
      <Route path="/feature_flags">{() => <FlagsListPage />}</Route>
      <Route path="/feature_flags/playground">{() => <PlaygroundPage />}</Route>
      <Route path="/feature_flags/new">{() => <FlagEditPage flagId={null} />}</Route>
      <Route path="/feature_flags/:id/edit">{(params) => <FlagEditPage flagId={Number(params.id)} />}</Route>
      <Route path="/feature_flags/:id">{(params) => <FlagPage flagId={Number(params.id)} />}</Route>
      <Route path="/experiments">{() => <ExperimentsListPage />}</Route>
      <Route path="/experiments/new">{() => <ExperimentNewPage />}</Route>
      <Route path="/experiments/:id">{(params) => <ExperimentPage experimentId={Number(params.id)} />}</Route>
      <Route path="/onboarding">{() => <OnboardingPage />}</Route>
      <Route path="/events">{() => <EventsPage />}</Route>
      <Route path="/early_access_features">{() => <EarlyAccessPage />}</Route>
      <Route path="/cohorts">{() => <CohortsListPage />}</Route>
      <Route path="/cohorts/new">{() => <CohortPage cohortId={null} />}</Route>
      <Route path="/cohorts/:id">{(params) => <CohortPage cohortId={Number(params.id)} />}</Route>
      <Route path="/persons">{() => <PersonsListPage />}</Route>
      <Route path="/persons/:id">{(params) => <PersonPage personId={params.id} />}</Route>
      <Route path="/surveys">{() => <SurveysListPage />}</Route>
      <Route path="/surveys/new">{() => <SurveyEditPage surveyId={null} />}</Route>
      <Route path="/surveys/:id/edit">{(params) => <SurveyEditPage surveyId={params.id} />}</Route>
      <Route path="/surveys/:id">{(params) => <SurveyPage surveyId={params.id} />}</Route>
      <Route path="/data-management/events">{() => <DefinitionsListPage />}</Route>
      <Route path="/data-management/events/:id">{(params) => <DefinitionPage definitionId={params.id} />}</Route>
      <Route path="/approvals">{() => <ReviewPage />}</Route>
      <Route path="/activity">{() => <ActivityPage />}</Route>
      <Route path="/settings">
        <Redirect to="/settings/project" replace />
      </Route>
      <Route path="/settings/:tab">{(params) => <SettingsPage tab={params.tab} />}</Route>
      <Route>{() => <NotFoundPage />}</Route>
      </Switch>
    </Suspense>
  );
}
