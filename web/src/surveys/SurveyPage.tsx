import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { api } from '../api/client.ts';
import { errorMessage } from '../api/errors.ts';
import { PagedActivity } from '../activity/PagedActivity.tsx';
import { displayName, useProject, useProjectPath, useTeams } from '../shell/session.ts';
import { formatDateTime } from '../lib/format.ts';
import { useUrlParams } from '../lib/url-state.ts';
import { Button } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Checkbox, Field, Input } from '../ui/Field.tsx';
import { PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { TabPanel, Tabs } from '../ui/Tabs.tsx';
import { useToast } from '../ui/Toast.tsx';
import { surveyKeys, useSurvey, useSurveyActivity, useUpdateSurvey, type ResultsFilter } from './api.ts';
import { ResponsesTable } from './ResponsesTable.tsx';
import { SurveyStatusBadge } from './SurveyBadges.tsx';
import { SurveyResults } from './SurveyResults.tsx';
import { SURVEY_TYPE_LABELS, surveyStatus } from './status.ts';
import type { Survey } from './types.ts';
import './surveys.css';

const TABS = [
  { id: 'results', label: 'Results' },
  { id: 'responses', label: 'Responses' },
  { id: 'history', label: 'History' },
];

function SurveyHistory({ survey }: { survey: Survey }) {
  const [page, setPage] = useState(1);
  return <PagedActivity activity={useSurveyActivity(survey.id, page)} page={page} onPage={setPage} />;
}

/** Launch and stop through `POST …/launch/` and `/stop/` (the server's clock, refused in the wrong state); resume and archive by PATCH. */
function LifecycleActions({ survey }: { survey: Survey }) {
  const project = useProject();
  const path = useProjectPath();
  const client = useQueryClient();
  const update = useUpdateSurvey(survey.id);
  const toast = useToast();
  const status = surveyStatus(survey);
  const action = useMutation({
    mutationFn: (name: 'launch' | 'stop') => api.post<Survey>(path(`surveys/${survey.id}/${name}/`)),
    onSuccess: (_, name) => {
      toast.show(name === 'launch' ? `"${survey.name}" is running.` : `"${survey.name}" is stopped.`);
      void client.invalidateQueries({ queryKey: surveyKeys.all(project.id) });
    },
    onError: (error) => toast.show(`Not changed: ${errorMessage(error)}`, 'error'),
  });
  const run = (changes: Record<string, unknown>, done: string) =>
    update.mutate(changes, { onSuccess: () => toast.show(done), onError: (error) => toast.show(`Not changed: ${errorMessage(error)}`, 'error') });
  return (
    <>
      {status === 'draft' ? (
        <Button variant="primary" loading={action.isPending} onClick={() => action.mutate('launch')}>
          Launch
        </Button>
      ) : null}
      {status === 'running' ? (
        <Button loading={action.isPending} onClick={() => action.mutate('stop')}>
          Stop
        </Button>
      ) : null}
      {status === 'completed' ? (
        <Button loading={update.isPending} onClick={() => run({ end_date: null }, `"${survey.name}" is running again.`)}>
          Resume
        </Button>
      ) : null}
      <Button variant="ghost" loading={update.isPending} onClick={() => run({ archived: !survey.archived }, survey.archived ? 'Survey restored.' : 'Survey archived: posthog-js no longer shows it.')}>
        {survey.archived ? 'Unarchive' : 'Archive'}
      </Button>
    </>
  );
}

function DuplicateToProjects({ survey }: { survey: Survey }) {
  const project = useProject();
  const path = useProjectPath();
  const teams = useTeams().filter((team) => team.id !== project.id);
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [chosen, setChosen] = useState<number[]>([]);
  const duplicate = useMutation({
    mutationFn: () => api.post<{ count: number }>(path(`surveys/${survey.id}/duplicate_to_projects/`), { target_team_ids: chosen }),
    onSuccess: (result) => {
      setOpen(false);
      toast.show(`Copied to ${result.count} project${result.count === 1 ? '' : 's'} as drafts.`);
    },
  });
  if (teams.length === 0) return null;
  return (
    <>
      <Button variant="ghost" onClick={() => setOpen(true)}>
        Duplicate to projects
      </Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title={`Copy ${survey.name} to other projects`}
        footer={
          <>
            <Button onClick={() => setOpen(false)}>Cancel</Button>
            <Button variant="primary" disabled={chosen.length === 0} loading={duplicate.isPending} onClick={() => duplicate.mutate()}>
              Copy
            </Button>
          </>
        }
      >
        <p>Each copy starts as a draft in its project, with its own targeting.</p>
        {teams.map((team) => (
          <Checkbox key={team.id} label={team.name} checked={chosen.includes(team.id)} onChange={(event) => setChosen(event.target.checked ? [...chosen, team.id] : chosen.filter((id) => id !== team.id))} />
        ))}
        {duplicate.isError ? <Notice tone="error">{errorMessage(duplicate.error)}</Notice> : null}
      </Dialog>
    </>
  );
}

function ResultsFilterBar({ filter, onChange }: { filter: ResultsFilter; onChange: (filter: Record<string, string | null>) => void }) {
  return (
    <div className="filter-bar" role="search">
      <Field label="From">
        {(control) => <Input {...control} type="date" value={filter.date_from?.slice(0, 10) ?? ''} onChange={(event) => onChange({ from: event.target.value || null })} />}
      </Field>
      <Field label="To">
        {(control) => <Input {...control} type="date" value={filter.date_to?.slice(0, 10) ?? ''} onChange={(event) => onChange({ to: event.target.value || null })} />}
      </Field>
      <Checkbox label="Exclude archived responses" checked={filter.exclude_archived === true} onChange={(event) => onChange({ archived: event.target.checked ? null : 'include' })} />
    </div>
  );
}

export default function SurveyPage({ surveyId }: { surveyId: string }) {
  const survey = useSurvey(surveyId);
  const [params, setParams] = useUrlParams();
  const [, navigate] = useLocation();
  const tab = TABS.some((item) => item.id === params.get('tab')) ? params.get('tab')! : 'results';
  useDocumentTitle(survey.data?.name ?? 'Survey');
  if (survey.isPending) return <Spinner label="Loading the survey…" />;
  if (survey.isError) return <ErrorNotice error={survey.error} onRetry={() => void survey.refetch()} />;
  const data = survey.data;
  const filter: ResultsFilter = {
    date_from: params.get('from') ? `${params.get('from')}T00:00:00Z` : undefined,
    date_to: params.get('to') ? `${params.get('to')}T23:59:59Z` : undefined,
    exclude_archived: params.get('archived') !== 'include',
  };
  return (
    <>
      <nav className="breadcrumbs" aria-label="Breadcrumbs">
        <Link href="/surveys">Surveys</Link> <span aria-hidden="true">/</span> <span>{data.name}</span>
      </nav>
      <PageHeader
        title={data.name}
        description={data.description || undefined}
        meta={
          <>
            <SurveyStatusBadge survey={data} />
            <span className="muted small">
              {SURVEY_TYPE_LABELS[data.type] ?? data.type} · created by {displayName(data.created_by)} on {formatDateTime(data.created_at)}
              {data.start_date ? ` · started ${formatDateTime(data.start_date)}` : ''}
              {data.end_date ? ` · ends ${formatDateTime(data.end_date)}` : ''}
            </span>
          </>
        }
        actions={
          <>
            <LifecycleActions survey={data} />
            <DuplicateToProjects survey={data} />
            <Button variant="secondary" onClick={() => navigate(`/surveys/${data.id}/edit`)}>
              Edit
            </Button>
          </>
        }
      />
      {data.archived ? <Notice tone="warning">This survey is archived: posthog-js does not show it. Its responses stay here.</Notice> : null}
      <Tabs tabs={TABS} selected={tab} onSelect={(id) => setParams({ tab: id === 'results' ? null : id })} label="Survey sections" idPrefix="survey" />
      <TabPanel idPrefix="survey" id={tab}>
        {tab !== 'history' ? <ResultsFilterBar filter={filter} onChange={setParams} /> : null}
        {tab === 'results' ? <SurveyResults survey={data} filter={filter} /> : null}
        {tab === 'responses' ? <ResponsesTable survey={data} filter={filter} /> : null}
        {tab === 'history' ? <SurveyHistory survey={data} /> : null}
      </TabPanel>
    </>
  );
}
