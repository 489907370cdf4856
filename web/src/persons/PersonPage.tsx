import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../api/client.ts';
import type { Person } from '../api/types.ts';
import { useProject, useProjectPath } from '../shell/session.ts';
import { useEvaluationReasons } from '../flags/api.ts';
import { formatDateTime, formatRelative } from '../lib/format.ts';
import { Badge } from '../ui/Badge.tsx';
import { ErrorNotice, Spinner } from '../ui/Feedback.tsx';
import { Field, Input } from '../ui/Field.tsx';
import { Card, PageHeader, useDocumentTitle } from '../ui/Page.tsx';

function propertyValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function PersonFlags({ distinctId }: { distinctId: string }) {
  const reasons = useEvaluationReasons(distinctId);
  if (reasons.isPending) return <Spinner label="Evaluating flags…" />;
  if (reasons.isError) return <ErrorNotice error={reasons.error} onRetry={() => void reasons.refetch()} />;
  const entries = Object.entries(reasons.data).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return <p className="muted">The project has no flags yet.</p>;
  return (
    <div className="table-wrap">
      <table className="table compact">
        <caption className="visually-hidden">Flag values for {distinctId}</caption>
        <thead>
          <tr>
            <th scope="col">Flag</th>
            <th scope="col">Value</th>
            <th scope="col" className="wide-only">
              Why
            </th>
          </tr>
        </thead>
        <tbody>
          {entries.map(([key, result]) => (
            <tr key={key}>
              <td className="mono">{key}</td>
              <td>
                <Badge tone={result.value === false ? 'neutral' : 'success'}>{String(result.value)}</Badge>
              </td>
              <td className="wide-only muted small">
                {result.evaluation.reason.replaceAll('_', ' ')}
                {result.evaluation.condition_index !== null && result.evaluation.condition_index !== undefined ? ` (condition set ${result.evaluation.condition_index + 1})` : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function PersonPage({ personId }: { personId: string }) {
  const project = useProject();
  const path = useProjectPath();
  const person = useQuery({
    queryKey: ['persons', project.id, 'one', personId],
    queryFn: ({ signal }) => api.get<Person>(path(`persons/${encodeURIComponent(personId)}/`), signal),
  });
  const [filter, setFilter] = useState('');
  useDocumentTitle(person.data?.name ?? 'Person');
  if (person.isPending) return <Spinner label="Loading the person…" />;
  if (person.isError) return <ErrorNotice error={person.error} onRetry={() => void person.refetch()} />;
  const data = person.data;
  const properties = Object.entries(data.properties)
    .filter(([key, value]) => !filter || key.toLowerCase().includes(filter.toLowerCase()) || propertyValue(value).toLowerCase().includes(filter.toLowerCase()))
    .sort(([a], [b]) => a.localeCompare(b));
  return (
    <>
      <nav className="breadcrumbs" aria-label="Breadcrumbs">
        <Link href="/persons">Persons</Link> <span aria-hidden="true">/</span> {data.name}
      </nav>
      <PageHeader
        title={data.name}
        meta={
          <>
            {data.is_identified ? <Badge tone="success">Identified</Badge> : <Badge>Anonymous</Badge>}
            <span className="muted small">First seen {formatDateTime(data.created_at)}</span>
            <span className="muted small" title={data.last_seen_at ?? undefined}>
              Last seen {data.last_seen_at ? `${formatDateTime(data.last_seen_at)} (${formatRelative(data.last_seen_at)})` : 'never (no events)'}
            </span>
          </>
        }
      />
      <div className="overview-grid">
        <Card title="Properties" actions={<span className="muted small">{Object.keys(data.properties).length}</span>}>
          <Field label="Filter properties" hideLabel>
            {(control) => <Input {...control} type="search" placeholder="Filter properties" value={filter} onChange={(event) => setFilter(event.target.value)} />}
          </Field>
          {properties.length === 0 ? (
            <p className="muted">No properties{filter ? ' match' : ''}.</p>
          ) : (
            <div className="table-wrap">
              <table className="table compact">
                <caption className="visually-hidden">Properties</caption>
                <tbody>
                  {properties.map(([key, value]) => (
                    <tr key={key}>
                      <th scope="row" className="mono property-name">
                        {key}
                      </th>
                      <td className="property-value-cell">{propertyValue(value)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Card>
        <div className="stack">
          <Card title="Distinct ids">
            <ul className="plain-list">
              {data.distinct_ids.map((id) => (
                <li key={id} className="mono small">
                  {id}
                </li>
              ))}
            </ul>
          </Card>
          <Card title="Flag values">{data.distinct_ids[0] ? <PersonFlags distinctId={data.distinct_ids[0]} /> : <p className="muted">No distinct id.</p>}</Card>
        </div>
      </div>
    </>
  );
}
