import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { api } from '../api/client.ts';
import { errorMessage, isApiError } from '../api/errors.ts';
import { useProject, useProjectPath } from '../shell/session.ts';
import { useCohortChoices, useFlagChoices, useGroupTypes } from '../flags/api.ts';
import type { EditorChoices } from '../flags/editor/PropertyFilterRow.tsx';
import { Button, LinkButton } from '../ui/Button.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Checkbox, Field, Input, Select, TextArea } from '../ui/Field.tsx';
import { Card, PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { useToast } from '../ui/Toast.tsx';
import { surveyKeys, useSurvey } from './api.ts';
import { AppearanceEditor } from './editor/AppearanceEditor.tsx';
import { QuestionEditor } from './editor/QuestionEditor.tsx';
import { TargetingEditor } from './editor/TargetingEditor.tsx';
import { SurveyPreview } from './SurveyPreview.tsx';
import {
  moveQuestion,
  newQuestion,
  newSurveyForm,
  QUESTION_TYPE_LABELS,
  QUESTION_TYPES,
  removeQuestion,
  serverIssuePath,
  surveyFormBody,
  surveyIssues,
  surveyToForm,
  type SurveyForm,
} from './survey-form.ts';
import type { Survey } from './types.ts';
import './surveys.css';

const TYPE_OPTIONS = [
  { value: 'popover', label: 'Popover (posthog-js shows it on the page)' },
  { value: 'widget', label: 'Feedback button (a tab or your own button opens it)' },
  { value: 'api', label: 'API (your code renders it)' },
  { value: 'external_survey', label: 'Hosted link' },
];
const SCHEDULE_OPTIONS = [
  { value: 'once', label: 'Once per person' },
  { value: 'recurring', label: 'Repeat every few days' },
  { value: 'always', label: 'Every time the conditions match' },
];
const PLACED = ['name', 'description', 'type', 'questions', 'appearance', 'conditions', 'linked_flag_id', 'targeting_flag_filters', 'schedule', 'iteration_count', 'iteration_frequency_days', 'responses_limit', 'response_sampling_start_date', 'response_sampling_interval', 'response_sampling_interval_type', 'response_sampling_limit'];

const numberOrNull = (text: string): number | null => (text.trim() === '' ? null : Math.max(0, Math.floor(Number(text))));

function SurveyBuilder({ survey }: { survey: Survey | null }) {
  const project = useProject();
  const path = useProjectPath();
  const client = useQueryClient();
  const toast = useToast();
  const [, navigate] = useLocation();
  const [form, setForm] = useState<SurveyForm>(() => (survey ? surveyToForm(survey) : newSurveyForm()));
  const [showIssues, setShowIssues] = useState(false);
  const flags = useFlagChoices();
  const cohorts = useCohortChoices();
  const groupTypes = useGroupTypes();
  const update = (changes: Partial<SurveyForm>) => setForm((current) => ({ ...current, ...changes }));

  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) => (survey ? api.patch<Survey>(path(`surveys/${survey.id}/`), body) : api.post<Survey>(path('surveys/'), body)),
    onSuccess: (saved) => {
      void client.invalidateQueries({ queryKey: surveyKeys.all(project.id) });
      toast.show(survey ? `Saved "${saved.name}".` : `Created "${saved.name}".`);
      navigate(`/surveys/${saved.id}`);
    },
  });

  const clientIssues = useMemo(() => surveyIssues(form), [form]);
  const serverPath = isApiError(save.error) ? serverIssuePath(save.error.attr, save.error.message) : null;
  const errorAt = (issuePath: string): string | null => {
    if (serverPath === issuePath && save.error) return errorMessage(save.error);
    return showIssues ? (clientIssues.find((issue) => issue.path === issuePath)?.message ?? null) : null;
  };
  const unplaced = save.error && (serverPath === null || !PLACED.some((field) => serverPath === field || serverPath.startsWith(`${field}__`)));

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setShowIssues(true);
    if (clientIssues.length > 0) {
      window.requestAnimationFrame(() => document.querySelector<HTMLElement>('.field-error')?.scrollIntoView({ block: 'center' }));
      return;
    }
    save.mutate(surveyFormBody(form));
  };

  const choices: EditorChoices = { cohorts: cohorts.data ?? [], flags: flags.data ?? [], groupTypes: groupTypes.data ?? [], flagId: null, aggregation: null, types: ['person', 'cohort'] };
  const cancelHref = survey ? `/surveys/${survey.id}` : '/surveys';
  const actions = (
    <>
      <LinkButton href={cancelHref}>Cancel</LinkButton>
      <Button type="submit" variant="primary" loading={save.isPending}>
        {survey ? 'Save' : 'Save as draft'}
      </Button>
    </>
  );

  return (
    <form className="stack" onSubmit={onSubmit} noValidate>
      <PageHeader title={survey ? `Edit ${survey.name}` : 'New survey'} actions={actions} />
      {unplaced ? <Notice tone="error">The survey was not saved: {errorMessage(save.error)}</Notice> : null}
      {showIssues && clientIssues.length > 0 ? <Notice tone="error">Some fields need attention before the survey can be saved.</Notice> : null}
      <div className="survey-builder">
        <div className="stack">
          <Card title="Survey">
            <div className="form-grid">
              <Field label="Name" error={errorAt('name')}>
                {(control) => <Input {...control} autoFocus={!survey} value={form.name} onChange={(event) => update({ name: event.target.value })} placeholder="Product feedback" />}
              </Field>
              <Field label="Presentation" error={errorAt('type')}>
                {(control) => <Select {...control} options={TYPE_OPTIONS} value={form.type} onChange={(event) => update({ type: event.target.value })} />}
              </Field>
            </div>
            <Field label="Description" hint="For your team; not shown to people." error={errorAt('description')}>
              {(control) => <TextArea {...control} rows={2} value={form.description} onChange={(event) => update({ description: event.target.value })} />}
            </Field>
          </Card>

          <Card title="Questions">
            {errorAt('questions') ? (
              <div className="field-error" role="alert">
                {errorAt('questions')}
              </div>
            ) : null}
            {form.questions.map((question, index) => (
              <QuestionEditor
                key={question.uid}
                question={question}
                index={index}
                questions={form.questions}
                error={errorAt(`questions__${index}`)}
                onChange={(next) => update({ questions: form.questions.map((item, i) => (i === index ? next : item)) })}
                onMove={(to) => update({ questions: moveQuestion(form.questions, index, to) })}
                onRemove={() => update({ questions: removeQuestion(form.questions, index) })}
              />
            ))}
            <div className="row">
              {QUESTION_TYPES.map((type) => (
                <Button key={type} size="sm" onClick={() => update({ questions: [...form.questions, newQuestion(type)] })}>
                  + {QUESTION_TYPE_LABELS[type]}
                </Button>
              ))}
            </div>
          </Card>

          <Card title="Appearance">
            <AppearanceEditor appearance={form.appearance} onChange={(appearance) => update({ appearance })} error={errorAt('appearance')} surveyType={form.type} />
          </Card>

          <Card title="Display conditions">
            <TargetingEditor form={form} onChange={update} choices={choices} flags={flags.data ?? []} errors={errorAt} />
          </Card>

          <Card title="Schedule and limits">
            <div className="form-grid">
              <Field label="How often" error={errorAt('schedule')}>
                {(control) => (
                  <Select
                    {...control}
                    options={SCHEDULE_OPTIONS}
                    value={form.schedule ?? 'once'}
                    onChange={(event) =>
                      update(event.target.value === 'recurring' ? { schedule: 'recurring', iterationCount: form.iterationCount ?? 2, iterationFrequencyDays: form.iterationFrequencyDays ?? 90 } : { schedule: event.target.value, iterationCount: null, iterationFrequencyDays: null })
                    }
                  />
                )}
              </Field>
              {form.schedule === 'recurring' ? (
                <>
                  <Field label="Times" hint="How many times each person is asked." error={errorAt('iteration_count')}>
                    {(control) => <Input {...control} type="number" min={1} max={500} value={form.iterationCount ?? ''} onChange={(event) => update({ iterationCount: numberOrNull(event.target.value) })} />}
                  </Field>
                  <Field label="Every (days)" error={errorAt('iteration_frequency_days')}>
                    {(control) => <Input {...control} type="number" min={1} value={form.iterationFrequencyDays ?? ''} onChange={(event) => update({ iterationFrequencyDays: numberOrNull(event.target.value) })} />}
                  </Field>
                </>
              ) : null}
            </div>
            <div className="form-grid">
              <Field label="Stop after this many responses" hint="Empty: no limit." error={errorAt('responses_limit')}>
                {(control) => <Input {...control} type="number" min={1} value={form.responsesLimit ?? ''} onChange={(event) => update({ responsesLimit: numberOrNull(event.target.value) })} />}
              </Field>
              <Field label="Sampling: responses per interval" hint="Shows the survey to a share of people so about this many answer per interval." error={errorAt('response_sampling_limit')}>
                {(control) => <Input {...control} type="number" min={0} value={form.samplingLimit ?? ''} onChange={(event) => update({ samplingLimit: numberOrNull(event.target.value) })} />}
              </Field>
              {(form.samplingLimit ?? 0) > 0 ? (
                <>
                  <Field label="Interval" error={errorAt('response_sampling_interval')}>
                    {(control) => <Input {...control} type="number" min={1} value={form.samplingInterval ?? ''} onChange={(event) => update({ samplingInterval: numberOrNull(event.target.value) })} />}
                  </Field>
                  <Field label="Interval unit" error={errorAt('response_sampling_interval_type')}>
                    {(control) => (
                      <Select
                        {...control}
                        options={[
                          { value: 'day', label: 'days' },
                          { value: 'week', label: 'weeks' },
                          { value: 'month', label: 'months' },
                        ]}
                        value={form.samplingIntervalType ?? 'week'}
                        onChange={(event) => update({ samplingIntervalType: event.target.value })}
                      />
                    )}
                  </Field>
                  <Field label="Sampling starts" hint="Today or later (UTC)." error={errorAt('response_sampling_start_date')}>
                    {(control) => (
                      <Input
                        {...control}
                        type="date"
                        value={form.samplingStartDate ? form.samplingStartDate.slice(0, 10) : ''}
                        onChange={(event) => update({ samplingStartDate: event.target.value ? `${event.target.value}T00:00:00Z` : null, samplingIntervalType: form.samplingIntervalType ?? 'week' })}
                      />
                    )}
                  </Field>
                </>
              ) : null}
            </div>
            <Checkbox
              label="Keep partial responses"
              hint="posthog-js sends each answer as it is given, so people who stop half-way still count."
              checked={form.enablePartialResponses === true}
              onChange={(event) => update({ enablePartialResponses: event.target.checked ? true : form.enablePartialResponses === null ? null : false })}
            />
          </Card>
          <div className="form-actions">{actions}</div>
        </div>
        <aside className="survey-builder-preview" aria-label="Preview">
          <Card title="Preview">
            <SurveyPreview questions={form.questions.map((question) => question.value)} appearance={form.appearance} surveyType={form.type} />
          </Card>
        </aside>
      </div>
    </form>
  );
}

export default function SurveyEditPage({ surveyId }: { surveyId: string | null }) {
  const survey = useSurvey(surveyId);
  useDocumentTitle(surveyId === null ? 'New survey' : `Edit ${survey.data?.name ?? 'survey'}`);
  if (surveyId === null) return <SurveyBuilder survey={null} />;
  if (survey.isPending) return <Spinner label="Loading the survey…" />;
  if (survey.isError) return <ErrorNotice error={survey.error} onRetry={() => void survey.refetch()} />;
  return <SurveyBuilder key={survey.data.id} survey={survey.data} />;
}
