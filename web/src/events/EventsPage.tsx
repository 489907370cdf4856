import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, withQuery } from '../api/client.ts';
import { formatDateTime, formatRelative } from '../lib/format.ts';
import { useUrlParams } from '../lib/url-state.ts';
import { useProject, useProjectPath } from '../shell/session.ts';
import { Button, LinkButton } from '../ui/Button.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { ErrorNotice, Spinner } from '../ui/Feedback.tsx';
import { Field, Input } from '../ui/Field.tsx';
import { Card, PageHeader, useDocumentTitle } from '../ui/Page.tsx';
import type { EventItem } from './api.ts';
import './events.css';

/** New events show within this time (the first page is read again; it is one bounded index read). */
export const EVENTS_REFRESH_MS = 1_000;
const PAGE_SIZE = 100;

interface Filters {
  event: string;
  person: string;
  property: string;
}

/** `key=value` → an exact event-property filter; anything else is no filter. */
function propertyFilter(text: string): string | undefined {
  const at = text.indexOf('=');
  if (at <= 0) return undefined;
  return JSON.stringify([{ key: text.slice(0, at).trim(), value: text.slice(at + 1).trim(), operator: 'exact', type: 'event' }]);
}

function EventRow({ item, open, onToggle }: { item: EventItem; open: boolean; onToggle: () => void }) {
  const person = item.person;
  return (
    <>
      <tr className={`events-row${open ? ' events-row-open' : ''}`}>
        <td>
          <button type="button" className="events-toggle" aria-expanded={open} onClick={onToggle}>
            <span aria-hidden="true">{open ? '▾' : '▸'}</span> <span className="mono">{item.event}</span>
          </button>
        </td>
        <td className="events-person">
          {person ? <Link href={`/persons/${person.uuid}`}>{String(person.properties.email ?? person.properties.name ?? item.distinct_id)}</Link> : <span className="mono">{item.distinct_id}</span>}
        </td>
        <td className="events-time" title={formatDateTime(item.timestamp)}>
          {formatRelative(item.timestamp)}
        </td>
      </tr>
      {open ? (
        <tr className="events-properties">
          <td colSpan={3}>
            <dl className="events-property-list" aria-label={`Properties of ${item.event}`}>
              <dt>distinct id</dt>
              <dd className="mono">{item.distinct_id}</dd>
              <dt>time</dt>
              <dd className="mono">{item.timestamp}</dd>
              {Object.entries(item.properties)
                .sort(([a], [b]) => a.localeCompare(b))
                .map(([key, value]) => (
                  <div key={key} className="events-property">
                    <dt className="mono">{key}</dt>
                    <dd className="mono">{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
                  </div>
                ))}
            </dl>
          </td>
        </tr>
      ) : null}
    </>
  );
}

/** The project's events, newest first, updating live; filters by event, person and property. */
export function EventsPage() {
  useDocumentTitle('Events');
  const project = useProject();
  const path = useProjectPath();
  const [params, setParams] = useUrlParams();
  const filters: Filters = { event: params.get('event') ?? '', person: params.get('person') ?? '', property: params.get('property') ?? '' };
  const [draft, setDraft] = useState<Filters>(filters);
  const [live, setLive] = useState(true);
  const [open, setOpen] = useState<string | null>(null);
  const events = useQuery({
    queryKey: ['events', project.id, filters],
    queryFn: ({ signal }) =>
      api.get<{ results: EventItem[] }>(
        withQuery(path('events/'), {
          event: filters.event || undefined,
          distinct_id: filters.person || undefined,
          properties: propertyFilter(filters.property),
          limit: PAGE_SIZE,
        }),
        signal,
      ),
    refetchInterval: live ? EVENTS_REFRESH_MS : false,
    placeholderData: (previous) => previous,
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setParams({ event: draft.event.trim() || null, person: draft.person.trim() || null, property: draft.property.trim() || null });
  };
  const filtered = filters.event !== '' || filters.person !== '' || filters.property !== '';
  const rows = events.data?.results ?? [];
  return (
    <>
      <PageHeader
        title="Events"
        description="What your SDKs send, newest first. New events appear by themselves."
        actions={
          <Button onClick={() => setLive(!live)} aria-pressed={live}>
            {live ? 'Pause' : 'Resume live updates'}
          </Button>
        }
      />
      <form className="events-filters" onSubmit={onSubmit} aria-label="Filter events">
        <Field label="Event">
          {(control) => <Input {...control} placeholder="$pageview" value={draft.event} onChange={(e) => setDraft({ ...draft, event: e.target.value })} />}
        </Field>
        <Field label="Person (distinct id)">
          {(control) => <Input {...control} placeholder="user-42" value={draft.person} onChange={(e) => setDraft({ ...draft, person: e.target.value })} />}
        </Field>
        <Field label="Property" hint="key=value, e.g. $browser=Chrome">
          {(control) => <Input {...control} placeholder="plan=pro" value={draft.property} onChange={(e) => setDraft({ ...draft, property: e.target.value })} />}
        </Field>
        <div className="row">
          <Button type="submit" variant="primary">
            Filter
          </Button>
          {filtered ? (
            <Button
              onClick={() => {
                setDraft({ event: '', person: '', property: '' });
                setParams({ event: null, person: null, property: null });
              }}
            >
              Clear
            </Button>
          ) : null}
        </div>
      </form>
      {events.isPending ? (
        <Spinner label="Loading events…" />
      ) : events.isError ? (
        <ErrorNotice error={events.error} onRetry={() => void events.refetch()} />
      ) : rows.length === 0 ? (
        filtered ? (
          <EmptyState title="No events match these filters" />
        ) : (
          <EmptyState title="No events yet" action={<LinkButton href="/onboarding" variant="primary">Install an SDK</LinkButton>}>
            Events appear here within a second of arriving.
          </EmptyState>
        )
      ) : (
        <Card>
          <div className="table-wrap">
            <table className="table events-table">
              <caption className="visually-hidden">Events, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Person</th>
                  <th scope="col">When</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((item) => (
                  <EventRow key={item.id} item={item} open={open === item.id} onToggle={() => setOpen(open === item.id ? null : item.id)} />
                ))}
              </tbody>
            </table>
          </div>
          {rows.length === PAGE_SIZE ? <p className="muted small">The newest {PAGE_SIZE} events; filter to find older ones.</p> : null}
        </Card>
      )}
    </>
  );
}
