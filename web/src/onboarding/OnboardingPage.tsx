import { useEffect, useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { formatDateTime } from '../lib/format.ts';
import { SDK_SNIPPETS } from '../settings/snippets.ts';
import { Badge } from '../ui/Badge.tsx';
import { Button, LinkButton } from '../ui/Button.tsx';
import { useProject } from '../shell/session.ts';
import { CopyField } from '../ui/CopyField.tsx';
import { ErrorNotice, Spinner } from '../ui/Feedback.tsx';
import { Card, PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { TabPanel, Tabs } from '../ui/Tabs.tsx';
import { useChecklist, useFirstEvent, useProjectDetails } from './api.ts';
import { checklistEnded, endChecklist } from './landing.ts';
import './onboarding.css';

function Step({ number, title, done, children }: { number: number; title: string; done: boolean; children: ReactNode }) {
  return (
    <li className={`onboarding-step${done ? ' onboarding-step-done' : ''}`}>
      <div className="row-between">
        <h2 className="onboarding-step-title">
          <span className="onboarding-step-number" aria-hidden="true">
            {done ? '✓' : number}
          </span>
          {title}
        </h2>
        <Badge tone={done ? 'success' : 'neutral'}>{done ? 'Done' : 'To do'}</Badge>
      </div>
      <div className="onboarding-step-body">{children}</div>
    </li>
  );
}

function InstallSdk() {
  const project = useProjectDetails();
  const [sdk, setSdk] = useState(SDK_SNIPPETS[0].id);
  if (project.isPending) return <Spinner />;
  if (project.isError) return <ErrorNotice error={project.error} onRetry={() => void project.refetch()} />;
  const chosen = SDK_SNIPPETS.find((each) => each.id === sdk) ?? SDK_SNIPPETS[0];
  return (
    <>
      <p className="muted">Point one of PostHog's SDKs at this server. The project token and this server's address are filled in.</p>
      <Tabs tabs={SDK_SNIPPETS.map(({ id, label }) => ({ id, label }))} selected={chosen.id} onSelect={setSdk} label="SDK" idPrefix="sdk" />
      <TabPanel idPrefix="sdk" id={chosen.id}>
        <CopyField label={`${chosen.label} set-up`} multiline value={chosen.code(window.location.origin, project.data.api_token)} />
      </TabPanel>
    </>
  );
}

function FirstEvent({ event }: { event: ReturnType<typeof useFirstEvent> }) {
  if (event.isError) return <ErrorNotice error={event.error} onRetry={() => void event.refetch()} />;
  if (!event.data) {
    return (
      <div className="onboarding-waiting" role="status">
        <span className="onboarding-pulse" aria-hidden="true" />
        Waiting for your first event… Send one with the snippet above; this turns green when it arrives.
      </div>
    );
  }
  return (
    <p className="onboarding-received" role="status">
      First event received: <strong className="mono">{event.data.event}</strong> from <span className="mono">{event.data.distinct_id}</span> at{' '}
      {formatDateTime(event.data.timestamp)}. <Link href="/events">See the events</Link>
    </p>
  );
}

/** A new project's checklist: install an SDK, see the first event arrive, create a flag, invite the team. */
export function OnboardingPage() {
  useDocumentTitle('Get started');
  const environment = useProject();
  const [, navigate] = useLocation();
  const { event, steps, complete } = useChecklist();
  const done = steps.filter(Boolean).length;
  const [ended, setEnded] = useState(() => checklistEnded(environment.id));
  useEffect(() => {
    if (complete && ended === null) {
      endChecklist(environment.id, 'complete');
      setEnded('complete');
    }
  }, [complete, ended, environment.id]);
  const dismiss = () => {
    endChecklist(environment.id, 'dismissed');
    navigate('/feature_flags');
  };
  const reopen = () => {
    endChecklist(environment.id, null);
    setEnded(null);
  };
  return (
    <>
      <PageHeader
        title="Get started"
        description={`${done} of ${steps.length} done. Each step turns green by itself${ended === null ? '; this environment opens here until all are done' : ''}.`}
        actions={
          ended === null ? (
            <Button variant="ghost" onClick={dismiss}>
              Skip: open on the flag list
            </Button>
          ) : ended === 'dismissed' ? (
            <Button variant="ghost" onClick={reopen}>
              Open on this checklist again
            </Button>
          ) : null
        }
      />

      <Card>
        <ol className="onboarding-steps">
          <Step number={1} title="Install an SDK and send your first event" done={steps[0]}>
            <InstallSdk />
            <FirstEvent event={event} />
          </Step>
          <Step number={2} title="Create your first feature flag" done={steps[1]}>
            <p className="muted">A flag decides, for each person, whether a feature is on and which variant they get.</p>
            <LinkButton href={steps[1] ? '/feature_flags' : '/feature_flags/new'} variant={steps[1] ? 'secondary' : 'primary'}>
              {steps[1] ? 'See your flags' : 'Create a flag'}
            </LinkButton>
          </Step>
          <Step number={3} title="Invite your team" done={steps[2]}>
            <p className="muted">Teammates get an invite link; admins can manage flags, tokens and members.</p>
            <LinkButton href="/settings/members">{steps[2] ? 'Manage members' : 'Invite teammates'}</LinkButton>
          </Step>
        </ol>
      </Card>
    </>
  );
}
