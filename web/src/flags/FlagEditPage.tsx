import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { api, withQuery } from '../api/client.ts';
import { errorMessage, isApiError } from '../api/errors.ts';
import type { FeatureFlag, Paginated } from '../api/types.ts';
import { useProject, useProjectPath } from '../shell/session.ts';
import { Button, LinkButton } from '../ui/Button.tsx';
import { ChipsInput } from '../ui/ChipsInput.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Checkbox, Field, Input, Select } from '../ui/Field.tsx';
import { Card, PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { Switch } from '../ui/Switch.tsx';
import { useToast } from '../ui/Toast.tsx';
import { gateOutcome as gateOutcomeOf, useGateOutcome } from '../approvals/gate-answer.ts';
import { flagKeys, useCohortChoices, useFlag, useFlagChoices, useGroupTypes } from './api.ts';
import { ConditionSetEditor } from './editor/ConditionSetEditor.tsx';
import type { EditorChoices } from './editor/PropertyFilterRow.tsx';
import { ServedValueEditor } from './editor/ServedValueEditor.tsx';
import { flagFormBody, flagToForm, keyIssue, newFlagForm, type FlagForm } from './flag-form.ts';
import { newUid, type ConditionForm } from './filters-form.ts';
import { formIssues, groupPath, serverIssuePath, type FormIssue } from './filters-issues.ts';

const RUNTIME_OPTIONS = [
  { value: 'all', label: 'Client and server' },
  { value: 'client', label: 'Client only (browsers, mobile)' },
  { value: 'server', label: 'Server only' },
];

function usePersonPropertyNames() {
  const project = useProject();
  const path = useProjectPath();
  return useQuery({
    queryKey: ['property-names', project.id, 'person'],
    queryFn: ({ signal }) => api.get<Paginated<{ name: string }>>(withQuery(path('property_definitions/'), { type: 'person', limit: 500 }), signal),
    select: (page) => page.results.map((definition) => definition.name),
    staleTime: 60_000,
  });
}

function duplicateCondition(condition: ConditionForm): ConditionForm {
  return {
    ...structuredClone(condition),
    uid: newUid('g'),
    properties: condition.properties?.map((property) => ({ ...structuredClone(property), uid: newUid('p') })),
  };
}

function FlagEditor({ flag }: { flag: FeatureFlag | null }) {
  const project = useProject();
  const path = useProjectPath();
  const client = useQueryClient();
  const toast = useToast();
  const [, navigate] = useLocation();
  const [form, setForm] = useState<FlagForm>(() => (flag ? flagToForm(flag) : newFlagForm()));
  const [showIssues, setShowIssues] = useState(false);
  const cohorts = useCohortChoices();
  const flags = useFlagChoices();
  const groupTypes = useGroupTypes();
  const propertyNames = usePersonPropertyNames();
  const gateOutcome = useGateOutcome();

  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      flag
        ? api.patch<FeatureFlag>(path(`feature_flags/${flag.id}/`), body, { 'if-match': `"${flag.version}"` })
        : api.post<FeatureFlag>(path('feature_flags/'), body),
    onSuccess: (saved) => {
      client.setQueryData(flagKeys.one(project.id, saved.id), saved);
      void client.invalidateQueries({ queryKey: flagKeys.all(project.id) });
      toast.show(flag ? `Saved "${saved.key}".` : `Created "${saved.key}".`);
      navigate(`/feature_flags/${saved.id}`);
    },
    onError: (error) => {
      // Held by an approval policy: nothing is wrong with the edit, it now waits for a reviewer
      // (the flag's page says so in its banner).
      const gate = gateOutcome(error);
      if (gate?.kind === 'sent' && flag) {
        toast.show(gate.message);
        navigate(`/feature_flags/${flag.id}`);
      }
    },
  });

  const clientIssues: FormIssue[] = useMemo(() => {
    const issues = formIssues(form.filters);
    const key = keyIssue(form.key);
    if (key) issues.unshift({ path: 'key', message: key });
    return issues;
  }, [form]);
  const serverIssue: FormIssue | null = useMemo(() => {
    const error = save.error;
    if (!isApiError(error) || error.status === 409) return null;
    const issuePath = serverIssuePath(error.attr, error.message);
    return issuePath ? { path: issuePath, message: error.message } : null;
  }, [save.error]);
  const issuesAt = (issuePath: string): string[] => [
    ...(showIssues ? clientIssues.filter((issue) => issue.path === issuePath).map((issue) => issue.message) : []),
    ...(serverIssue && serverIssue.path === issuePath ? [serverIssue.message] : []),
  ];
  const firstAt = (issuePath: string) => issuesAt(issuePath)[0] ?? null;

  const aggregation = form.filters.aggregation_group_type_index ?? null;
  const choices: EditorChoices = {
    cohorts: cohorts.data ?? [],
    flags: flags.data ?? [],
    groupTypes: groupTypes.data ?? [],
    flagId: flag?.id ?? null,
    aggregation,
  };
  const variantKeys = (form.filters.multivariate?.variants ?? []).map((variant) => variant.key).filter(Boolean);
  const groups = form.filters.groups ?? [];
  const setFilters = (filters: FlagForm['filters']) => setForm((current) => ({ ...current, filters }));
  const setGroups = (next: ConditionForm[]) => setFilters({ ...form.filters, groups: next });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setShowIssues(true);
    if (clientIssues.length > 0) {
      window.requestAnimationFrame(() => document.querySelector<HTMLElement>('[aria-invalid="true"], .field-error')?.scrollIntoView({ block: 'center' }));
      return;
    }
    save.mutate(flagFormBody(form));
  };

  const unplacedServerError =
    save.error && (!isApiError(save.error) || save.error.status === 409 || !serverIssue || !['key', 'name', 'tags', 'evaluation_tags', 'evaluation_runtime', 'filters'].some((prefix) => serverIssue.path === prefix || serverIssue.path.startsWith(`${prefix}__`)));

  return (
    <form className="stack flag-editor" onSubmit={onSubmit} noValidate>
      <PageHeader
        title={flag ? `Edit ${flag.key}` : 'New feature flag'}
        actions={
          <>
            <LinkButton href={flag ? `/feature_flags/${flag.id}` : '/feature_flags'}>Cancel</LinkButton>
            <Button type="submit" variant="primary" loading={save.isPending}>
              {flag ? 'Save' : 'Create flag'}
            </Button>
          </>
        }
      />
      {gateOutcomeOf(save.error)?.kind === 'already-waiting' ? (
        <Notice tone="warning">
          Not saved: a change of this kind to the flag is already awaiting review. <Link href="/approvals">See it on the review page</Link>, or change other fields.
        </Notice>
      ) : unplacedServerError ? (
        <Notice tone="error">
          {/* A 409 already says who changed the flag and to refresh: said once, not twice. */}
          {isApiError(save.error) && save.error.status === 409 ? errorMessage(save.error) : `The flag was not saved: ${errorMessage(save.error)}`}
        </Notice>
      ) : null}
      {showIssues && clientIssues.length > 0 ? <Notice tone="error">Some fields need attention before the flag can be saved.</Notice> : null}

      <Card title="Flag">
        <div className="form-grid">
          <Field label="Key" hint="What your code asks for: letters, numbers, - and _." error={firstAt('key')}>
            {(control) => (
              <Input {...control} className="mono" autoFocus={!flag} autoComplete="off" value={form.key} onChange={(event) => setForm({ ...form, key: event.target.value })} placeholder="new-checkout" />
            )}
          </Field>
          <Field label="Description" error={firstAt('name')}>
            {(control) => <Input {...control} value={form.name} onChange={(event) => setForm({ ...form, name: event.target.value })} placeholder="What the flag is for" />}
          </Field>
        </div>
        <div className="form-grid">
          <Field label="Tags" hint="Press Enter after each tag." error={firstAt('tags')}>
            {(control) => (
              <ChipsInput {...control} values={form.tags} placeholder="Add a tag" onChange={(tags) => setForm({ ...form, tags, evaluationTags: form.evaluationTags.filter((tag) => tags.includes(tag)) })} />
            )}
          </Field>
          <div className="field">
            <span className="field-label">Evaluation tags</span>
            {form.tags.length === 0 ? (
              <span className="field-hint">Add tags first; SDKs can then ask only for flags with chosen evaluation tags.</span>
            ) : (
              <div className="row">
                {form.tags.map((tag) => (
                  <Checkbox
                    key={tag}
                    label={tag}
                    checked={form.evaluationTags.includes(tag)}
                    onChange={(event) =>
                      setForm({ ...form, evaluationTags: event.target.checked ? [...form.evaluationTags, tag] : form.evaluationTags.filter((item) => item !== tag) })
                    }
                  />
                ))}
              </div>
            )}
            {firstAt('evaluation_tags') ? <div className="field-error">{firstAt('evaluation_tags')}</div> : null}
          </div>
        </div>
        <Switch checked={form.active} onChange={(active) => setForm({ ...form, active })} label={form.active ? 'Enabled' : 'Disabled'} showLabel />
      </Card>

      <Card title="Served value">
        <ServedValueEditor filters={form.filters} onChange={setFilters} issues={issuesAt} />
      </Card>

      <Card
        title="Release conditions"
        actions={
          <Field label="Match by" className="match-by">
            {(control) => (
              <Select
                {...control}
                options={[
                  { value: '', label: 'Persons' },
                  ...(groupTypes.data ?? []).map((type) => ({ value: String(type.group_type_index), label: `Groups: ${type.name_plural ?? type.group_type}` })),
                  ...(aggregation !== null && !(groupTypes.data ?? []).some((type) => type.group_type_index === aggregation)
                    ? [{ value: String(aggregation), label: `Group type ${aggregation}` }]
                    : []),
                ]}
                value={aggregation === null ? '' : String(aggregation)}
                onChange={(event) => {
                  const next = event.target.value === '' ? null : Number(event.target.value);
                  // Person filters mean nothing to a group flag and the other way round: start the filters afresh.
                  setFilters({
                    ...form.filters,
                    aggregation_group_type_index: next === null && form.filters.aggregation_group_type_index === undefined ? undefined : next,
                    groups: groups.map((group) => ({ ...group, properties: [] })),
                  });
                }}
              />
            )}
          </Field>
        }
      >
        <p className="muted">
          Each condition set is checked in order; the first one a {aggregation === null ? 'person' : 'group'} matches decides. Filters inside a set must all match.
        </p>
        {issuesAt('filters').map((message) => (
          <div key={message} className="field-error" role="alert">
            {message}
          </div>
        ))}
        {groups.map((condition, index) => (
          <ConditionSetEditor
            key={condition.uid}
            condition={condition}
            index={index}
            choices={choices}
            variantKeys={variantKeys}
            onChange={(next) => setGroups(groups.map((item, i) => (i === index ? next : item)))}
            onRemove={() => setGroups(groups.filter((_, i) => i !== index))}
            onDuplicate={() => setGroups([...groups.slice(0, index + 1), duplicateCondition(condition), ...groups.slice(index + 1)])}
            issues={(subpath) => issuesAt(subpath ? `${groupPath(index)}__${subpath}` : groupPath(index))}
          />
        ))}
        <div>
          <Button onClick={() => setGroups([...groups, { uid: newUid('g'), properties: [], rollout_percentage: 100, extra: {} }])}>+ Add condition set</Button>
        </div>
        <datalist id="bw-person-properties">
          {(propertyNames.data ?? []).map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
      </Card>

      <Card title="Advanced">
        <Checkbox
          label="Persist the value across authentication"
          hint="Experience continuity: a person keeps the value they got while anonymous after they sign in and get another distinct id."
          checked={form.ensureExperienceContinuity}
          onChange={(event) => setForm({ ...form, ensureExperienceContinuity: event.target.checked })}
        />
        <Field label="Evaluation runtime" hint="Which SDKs receive this flag." error={firstAt('evaluation_runtime')}>
          {(control) => (
            <Select
              {...control}
              options={RUNTIME_OPTIONS}
              value={form.evaluationRuntime === 'both' ? 'all' : form.evaluationRuntime}
              onChange={(event) => setForm({ ...form, evaluationRuntime: event.target.value as FlagForm['evaluationRuntime'] })}
            />
          )}
        </Field>
      </Card>

      <div className="form-actions">
        <LinkButton href={flag ? `/feature_flags/${flag.id}` : '/feature_flags'}>Cancel</LinkButton>
        <Button type="submit" variant="primary" loading={save.isPending}>
          {flag ? 'Save' : 'Create flag'}
        </Button>
      </div>
    </form>
  );
}

export function FlagEditPage({ flagId }: { flagId: number | null }) {
  const flag = useFlag(flagId ?? 0);
  useDocumentTitle(flagId === null ? 'New feature flag' : `Edit ${flag.data?.key ?? 'flag'}`);
  if (flagId === null) return <FlagEditor flag={null} />;
  if (flag.isPending) return <Spinner label="Loading the flag…" />;
  if (flag.isError) return <ErrorNotice error={flag.error} onRetry={() => void flag.refetch()} />;
  return <FlagEditor key={flag.data.id} flag={flag.data} />;
}
