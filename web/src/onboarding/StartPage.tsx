import { Redirect } from 'wouter';
import { useProject } from '../shell/session.ts';
import { Spinner } from '../ui/Feedback.tsx';
import { useChecklist } from './api.ts';
import { checklistEnded, endChecklist } from './landing.ts';

function ToChecklistUnlessComplete({ environmentId }: { environmentId: number }) {
  const checklist = useChecklist();
  if (!checklist.answered) return <Spinner label="Loading…" />;
  if (!checklist.complete) return <Redirect to="/onboarding" replace />;
  endChecklist(environmentId, 'complete');
  return <Redirect to="/feature_flags" replace />;
}

/** An environment's start page (`/`): the onboarding checklist until it is complete or dismissed, then the flag list. */
export function StartPage() {
  const environment = useProject();
  if (checklistEnded(environment.id) !== null) return <Redirect to="/feature_flags" replace />;
  return <ToChecklistUnlessComplete environmentId={environment.id} />;
}
