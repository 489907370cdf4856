import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { api } from '../api/client.ts';
import { errorMessage, fieldError, isApiError } from '../api/errors.ts';
import type { Cohort } from '../api/types.ts';
import { useProject, useProjectPath } from '../shell/session.ts';
import { useCohortChoices } from '../flags/api.ts';
import { PropertyFilterRow, type EditorChoices } from '../flags/editor/PropertyFilterRow.tsx';
import { newUid } from '../flags/filters-form.ts';
import { newProperty } from '../flags/property-operators.ts';
import { formatCount } from '../lib/format.ts';
import { Button, LinkButton } from '../ui/Button.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Field, Input, TextArea } from '../ui/Field.tsx';
import { Card, PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import { useToast } from '../ui/Toast.tsx';
import { useCohort, useCohortPersons } from './api.ts';
import { cohortFiltersToForm, cohortFormToFilters, type CohortMatchGroup } from './cohort-form.ts';

function CohortPersons({ cohort }: { cohort: Cohort }) {
  const [offset, setOffset] = useState(0);
  const [distinctId, setDistinctId] = useState('');
  const path = useProjectPath();
  const client = useQueryClient();
  const toast = useToast();
  const persons = useCohortPersons(cohort.id, offset);
  const add = useMutation({
    mutationFn: (id: string) => api.patch(path(`cohorts/${cohort.id}/add_persons_to_static_cohort/`), { distinct_ids: [id] }),
    onSuccess: () => {
      setDistinctId('');
      toast.show('Added to the cohort.');
      return client.invalidateQueries({ queryKey: ['cohorts'] });
    },
  });
  return (
    <Card title={cohort.is_static ? 'Members' : 'Persons matching now'} actions={cohort.count !== null ? <span className="muted small">{formatCount(cohort.count)} in total</span> : null}>
      {cohort.is_static ? (
        <form
          className="row evaluate-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (distinctId.trim()) add.mutate(distinctId.trim());
          }}
        >
          <Field label="Add a person by distinct id" hideLabel className="grow" error={add.isError ? errorMessage(add.error) : null}>
            {(control) => <Input {...control} placeholder="Distinct id of a person to add" value={distinctId} onChange={(event) => setDistinctId(event.target.value)} />}
          </Field>
          <Button type="submit" loading={add.isPending} disabled={!distinctId.trim()}>
            Add
          </Button>
        </form>
      ) : null}
      {persons.isPending ? (
        <Spinner />
      ) : persons.isError ? (
        <ErrorNotice error={persons.error} onRetry={() => void persons.refetch()} />
      ) : persons.data.results.length === 0 ? (
        <p className="muted">Nobody yet.</p>
      ) : (
        <>
          <ul className="plain-list">
            {persons.data.results.map((person) => (
              <li key={person.uuid}>
                <Link href={`/persons/${person.uuid}`}>{person.name}</Link> <span className="muted small mono">{person.distinct_ids[0]}</span>
              </li>
            ))}
          </ul>
          <div className="row">
            <Button size="sm" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - 25))}>
              Previous
            </Button>
            <Button size="sm" disabled={!persons.data.next} onClick={() => setOffset(offset + 25)}>
              Next
            </Button>
          </div>
        </>
      )}
    </Card>
  );
}

function CohortEditor({ cohort }: { cohort: Cohort | null }) {
  const project = useProject();
  const path = useProjectPath();
  const client = useQueryClient();
  const toast = useToast();
  const [, navigate] = useLocation();
  const [name, setName] = useState(cohort?.name ?? '');
  const [description, setDescription] = useState(cohort?.description ?? '');
  const [isStatic, setIsStatic] = useState(cohort?.is_static ?? false);
  const initialGroups = cohort ? cohortFiltersToForm(cohort.filters) : [{ uid: newUid('c'), properties: [newProperty('person')] }];
  const [groups, setGroups] = useState<CohortMatchGroup[] | null>(initialGroups);
  const cohorts = useCohortChoices();
  const choices: EditorChoices = {
    cohorts: (cohorts.data ?? []).filter((item) => item.id !== cohort?.id),
    flags: [],
    groupTypes: [],
    flagId: null,
    aggregation: null,
    types: ['person', 'cohort'],
  };

  const save = useMutation({
    mutationFn: () => {
      const body: Record<string, unknown> = { name, description };
      if (!cohort) body.is_static = isStatic;
      if (!isStatic && groups !== null) body.filters = cohortFormToFilters(groups);
      return cohort ? api.patch<Cohort>(path(`cohorts/${cohort.id}/`), body) : api.post<Cohort>(path('cohorts/'), body);
    },
    onSuccess: (saved) => {
      void client.invalidateQueries({ queryKey: ['cohorts', project.id] });
      toast.show(cohort ? 'Cohort saved.' : 'Cohort created.');
      if (!cohort) navigate(`/cohorts/${saved.id}`);
    },
  });
  const remove = useMutation({
    mutationFn: () => api.patch(path(`cohorts/${cohort!.id}/`), { deleted: true }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['cohorts', project.id] });
      toast.show('Cohort deleted.');
      navigate('/cohorts');
    },
    onError: (error) => toast.show(`Not deleted: ${errorMessage(error)}`, 'error'),
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const error = save.error;
  const placed = fieldError(error, 'name') || fieldError(error, 'description');

  return (
    <div className="stack">
    <form className="stack" onSubmit={onSubmit} noValidate>
      <nav className="breadcrumbs" aria-label="Breadcrumbs">
        <Link href="/cohorts">Cohorts</Link> <span aria-hidden="true">/</span> {cohort?.name || 'New cohort'}
      </nav>
      <PageHeader
        title={cohort ? cohort.name || `Cohort ${cohort.id}` : 'New cohort'}
        actions={
          <>
            {cohort ? (
              <Button variant="ghost" loading={remove.isPending} onClick={() => remove.mutate()}>
                Delete
              </Button>
            ) : (
              <LinkButton href="/cohorts">Cancel</LinkButton>
            )}
            <Button type="submit" variant="primary" loading={save.isPending}>
              {cohort ? 'Save' : 'Create cohort'}
            </Button>
          </>
        }
      />
      {error && !placed ? <Notice tone="error">The cohort was not saved: {errorMessage(error)}</Notice> : null}
      <Card title="Cohort">
        <div className="form-grid">
          <Field label="Name" error={fieldError(error, 'name')}>
            {(control) => <Input {...control} value={name} onChange={(event) => setName(event.target.value)} placeholder="Beta testers" autoFocus={!cohort} />}
          </Field>
          <Field label="Description" error={fieldError(error, 'description')}>
            {(control) => <TextArea {...control} rows={1} value={description} onChange={(event) => setDescription(event.target.value)} />}
          </Field>
        </div>
        {!cohort ? (
          <fieldset className="segmented">
            <legend className="visually-hidden">Kind of cohort</legend>
            <label className={`segment${isStatic ? '' : ' segment-on'}`}>
              <input type="radio" name="cohort-kind" checked={!isStatic} onChange={() => setIsStatic(false)} />
              Dynamic: by properties
            </label>
            <label className={`segment${isStatic ? ' segment-on' : ''}`}>
              <input type="radio" name="cohort-kind" checked={isStatic} onChange={() => setIsStatic(true)} />
              Static: a fixed list
            </label>
          </fieldset>
        ) : null}
      </Card>
      {!isStatic ? (
        <Card title="Who is in it">
          {groups === null ? (
            <>
              <Notice tone="info">These filters use a shape the console does not edit (filters on events, or deeper nesting). They are kept as they are; change them through the API.</Notice>
              <pre className="code-block">{JSON.stringify(cohort?.filters, null, 2)}</pre>
            </>
          ) : (
            <>
              <p className="muted">A person is in the cohort when they match any one of these groups; inside a group, every filter must match.</p>
              {fieldError(error, 'filters', true) ? (
                <div className="field-error" role="alert">
                  {fieldError(error, 'filters', true)}
                </div>
              ) : null}
              {groups.map((group, g) => (
                <section key={group.uid} className="panel condition-set" aria-label={`Match group ${g + 1}`}>
                  <div className="panel-header">
                    <h3>{g === 0 ? 'Match group 1' : `Or match group ${g + 1}`}</h3>
                    <Button size="sm" variant="ghost" onClick={() => setGroups(groups.filter((_, i) => i !== g))} aria-label={`Remove match group ${g + 1}`}>
                      Remove
                    </Button>
                  </div>
                  {group.properties.map((property, p) => (
                    <div key={property.uid} className="condition-property">
                      <span className="condition-joiner" aria-hidden="true">
                        {p === 0 ? 'Where' : 'and'}
                      </span>
                      <PropertyFilterRow
                        property={property}
                        label={`Group ${g + 1}, filter ${p + 1}`}
                        choices={choices}
                        issue={() => null}
                        onChange={(next) => setGroups(groups.map((item, i) => (i === g ? { ...item, properties: item.properties.map((old, j) => (j === p ? next : old)) } : item)))}
                        onRemove={() => setGroups(groups.map((item, i) => (i === g ? { ...item, properties: item.properties.filter((_, j) => j !== p) } : item)))}
                      />
                    </div>
                  ))}
                  <div>
                    <Button size="sm" onClick={() => setGroups(groups.map((item, i) => (i === g ? { ...item, properties: [...item.properties, newProperty('person')] } : item)))}>
                      + Add filter
                    </Button>
                  </div>
                </section>
              ))}
              <div>
                <Button onClick={() => setGroups([...groups, { uid: newUid('c'), properties: [newProperty('person')] }])}>+ Add match group</Button>
              </div>
            </>
          )}
        </Card>
      ) : !cohort ? (
        <Notice tone="info">Create the cohort, then add persons to it by their distinct ids.</Notice>
      ) : null}
      {isApiError(error) && error.status >= 500 ? <ErrorNotice error={error} /> : null}
    </form>
    {cohort ? <CohortPersons cohort={cohort} /> : null}
    </div>
  );
}

export function CohortPage({ cohortId }: { cohortId: number | null }) {
  const cohort = useCohort(cohortId);
  useDocumentTitle(cohortId === null ? 'New cohort' : cohort.data?.name || 'Cohort');
  if (cohortId === null) return <CohortEditor cohort={null} />;
  if (cohort.isPending) return <Spinner label="Loading the cohort…" />;
  if (cohort.isError) return <ErrorNotice error={cohort.error} onRetry={() => void cohort.refetch()} />;
  return <CohortEditor key={cohort.data.id} cohort={cohort.data} />;
}
