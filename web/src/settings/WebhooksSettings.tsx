import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, withQuery } from '../api/client.ts';
import { errorMessage, fieldError } from '../api/errors.ts';
import type { Paginated, Webhook, WebhookDelivery } from '../api/types.ts';
import { formatDateTime, formatRelative } from '../lib/format.ts';
import { useOrganizationRights } from '../shell/rights.ts';
import { useProjectPath } from '../shell/session.ts';
import { Badge } from '../ui/Badge.tsx';
import { Button } from '../ui/Button.tsx';
import { CopyField } from '../ui/CopyField.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { EmptyState } from '../ui/EmptyState.tsx';
import { ErrorNotice, Notice, Spinner } from '../ui/Feedback.tsx';
import { Checkbox, Field, Input, Select } from '../ui/Field.tsx';
import { Card } from '../ui/Page.tsx';
import { RestrictedButton } from '../ui/Restricted.tsx';
import { Table, type Column } from '../ui/Table.tsx';
import { useToast } from '../ui/Toast.tsx';

const KEYS = ['webhooks'] as const;

/** What a person reads beside each event type. */
const EVENT_LABELS: Record<string, string> = {
  'feature_flag.created': 'Flag created',
  'feature_flag.updated': 'Flag changed (before and after)',
  'feature_flag.deleted': 'Flag deleted',
  'survey.created': 'Survey created',
  'survey.launched': 'Survey launched',
  'survey.stopped': 'Survey stopped',
  'survey.response': 'Survey response',
  'cohort.updated': 'Cohort changed',
};

function useWebhookPath() {
  const path = useProjectPath();
  return (rest = '') => path(`webhooks/${rest}`);
}

function StatusBadge({ hook }: { hook: Webhook }) {
  if (hook.disabled_reason === 'failing') {
    return (
      <Badge tone="danger" title={`Every delivery failed for 3 days; disabled ${formatDateTime(hook.disabled_at)}`}>
        Disabled: failing
      </Badge>
    );
  }
  if (!hook.enabled) return <Badge>Disabled</Badge>;
  if (hook.failing_since) return <Badge tone="warning" title={`Failing since ${formatDateTime(hook.failing_since)}`}>Failing</Badge>;
  return <Badge tone="success">Enabled</Badge>;
}

/** The secret as the API gave it this once, hidden until asked for. */
function SecretReveal({ secret }: { secret: string }) {
  const [shown, setShown] = useState(false);
  return (
    <>
      <Notice tone="warning">This is the only time the signing secret is shown. Store it where the receiver verifies signatures.</Notice>
      {shown ? (
        <CopyField label="Signing secret" value={secret} hint="Verify the webhook-signature header with it (Standard Webhooks)." />
      ) : (
        <Button onClick={() => setShown(true)}>Reveal secret</Button>
      )}
    </>
  );
}

function EndpointDialog({ hook, eventTypes, open, onClose }: { hook: Webhook | null; eventTypes: string[]; open: boolean; onClose: () => void }) {
  const client = useQueryClient();
  const webhookPath = useWebhookPath();
  const [url, setUrl] = useState(hook?.url ?? '');
  const [description, setDescription] = useState(hook?.description ?? '');
  const [format, setFormat] = useState<'json' | 'slack'>(hook?.format ?? 'json');
  const [events, setEvents] = useState<string[]>(hook?.events ?? ['feature_flag.updated']);
  const [enabled, setEnabled] = useState(hook?.enabled ?? true);
  const save = useMutation({
    mutationFn: () => {
      const body = { url: url.trim(), description, format, events, enabled };
      return hook ? api.patch<Webhook>(webhookPath(`${hook.id}/`), body) : api.post<Webhook>(webhookPath(), body);
    },
    onSuccess: () => client.invalidateQueries({ queryKey: KEYS }),
  });
  const all = events.includes('*');
  const close = () => {
    save.reset();
    onClose();
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const error = save.error;
  const placed = fieldError(error, 'url') || fieldError(error, 'events');
  const created = save.isSuccess && !hook ? save.data : null;
  return (
    <Dialog
      open={open}
      onClose={close}
      size="lg"
      title={created ? 'Webhook added' : hook ? 'Edit webhook' : 'Add a webhook endpoint'}
      footer={
        created ? (
          <Button variant="primary" onClick={close}>
            Done
          </Button>
        ) : (
          <>
            <Button onClick={close}>Cancel</Button>
            <Button variant="primary" type="submit" form="webhook-form" loading={save.isPending} disabled={!url.trim() || events.length === 0}>
              {hook ? 'Save' : 'Add endpoint'}
            </Button>
          </>
        )
      }
    >
      {created ? (
        <SecretReveal secret={created.secret} />
      ) : (
        <form id="webhook-form" className="stack" onSubmit={onSubmit} noValidate>
          {error && !placed ? <Notice tone="error">{errorMessage(error)}</Notice> : null}
          {save.isSuccess && hook ? <Notice tone="success">Saved.</Notice> : null}
          <Field label="Endpoint URL" hint="An https URL; Bellwether signs each request (Standard Webhooks)." error={fieldError(error, 'url')}>
            {(control) => <Input {...control} autoFocus type="url" placeholder="https://example.com/webhooks/bellwether" value={url} onChange={(event) => setUrl(event.target.value)} />}
          </Field>
          <Field label="Description" hint="Optional: what listens there.">
            {(control) => <Input {...control} maxLength={400} value={description} onChange={(event) => setDescription(event.target.value)} />}
          </Field>
          <Field label="Format">
            {(control) => (
              <Select
                {...control}
                options={[
                  { value: 'json', label: 'JSON (type, timestamp, data)' },
                  { value: 'slack', label: 'Slack incoming webhook (a sentence and a link)' },
                ]}
                value={format}
                onChange={(event) => setFormat(event.target.value as 'json' | 'slack')}
              />
            )}
          </Field>
          <fieldset className="fieldset">
            <legend className="field-label">Events</legend>
            <Checkbox label="Every event, including ones added later" checked={all} onChange={(event) => setEvents(event.target.checked ? ['*'] : [])} />
            {!all ? (
              <div className="scope-grid">
                {eventTypes.map((type) => (
                  <Checkbox
                    key={type}
                    label={EVENT_LABELS[type] ?? type}
                    hint={<span className="mono">{type}</span>}
                    checked={events.includes(type)}
                    onChange={(event) => setEvents(event.target.checked ? [...events, type] : events.filter((each) => each !== type))}
                  />
                ))}
              </div>
            ) : null}
            {fieldError(error, 'events') ? <div className="field-error">{fieldError(error, 'events')}</div> : null}
          </fieldset>
          {hook ? <Checkbox label="Enabled" hint="Enabling a webhook disabled for failing clears that state." checked={enabled} onChange={(event) => setEnabled(event.target.checked)} /> : null}
        </form>
      )}
    </Dialog>
  );
}

function RotateDialog({ hook, onClose }: { hook: Webhook | null; onClose: () => void }) {
  const client = useQueryClient();
  const webhookPath = useWebhookPath();
  const rotate = useMutation({
    mutationFn: (target: Webhook) => api.post<Webhook>(webhookPath(`${target.id}/rotate_secret/`)),
    onSuccess: () => client.invalidateQueries({ queryKey: KEYS }),
  });
  const close = () => {
    rotate.reset();
    onClose();
  };
  return (
    <Dialog
      open={hook !== null}
      onClose={close}
      title={rotate.isSuccess ? 'New signing secret' : 'Rotate the signing secret?'}
      footer={
        rotate.isSuccess ? (
          <Button variant="primary" onClick={close}>
            Done
          </Button>
        ) : (
          <>
            <Button onClick={close}>Cancel</Button>
            <Button variant="primary" loading={rotate.isPending} onClick={() => hook && rotate.mutate(hook)}>
              Rotate secret
            </Button>
          </>
        )
      }
    >
      {rotate.isSuccess ? (
        <SecretReveal secret={rotate.data.secret} />
      ) : (
        <p>A new secret signs every delivery from now. The current one keeps signing beside it for 24 hours, so the receiver can switch without losing a message.</p>
      )}
      {rotate.isError ? <Notice tone="error">{errorMessage(rotate.error)}</Notice> : null}
    </Dialog>
  );
}

function DeliveryStatus({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.status === 'delivered') return <Badge tone="success">Delivered</Badge>;
  if (delivery.status === 'failed') return <Badge tone="danger">Failed</Badge>;
  if (delivery.sending) return <Badge tone="info">Sending</Badge>;
  return delivery.attempts > 0 ? <Badge tone="warning">Retrying</Badge> : <Badge tone="info">Pending</Badge>;
}

function Deliveries({ hook, manage }: { hook: Webhook; manage: string | null }) {
  const client = useQueryClient();
  const toast = useToast();
  const webhookPath = useWebhookPath();
  const deliveries = useQuery({
    queryKey: [...KEYS, hook.id, 'deliveries'],
    queryFn: ({ signal }) => api.get<Paginated<WebhookDelivery>>(withQuery(webhookPath(`${hook.id}/deliveries/`), { limit: 50 }), signal),
    // Quicker while something is on its way.
    refetchInterval: (query) => (query.state.data?.results.some((delivery) => delivery.status === 'pending') ? 1000 : 5000),
  });
  const redeliver = useMutation({
    mutationFn: (delivery: WebhookDelivery) => api.post<WebhookDelivery>(webhookPath(`${hook.id}/deliveries/${delivery.id}/redeliver/`)),
    onSuccess: () => toast.show('Sent again: it appears at the top of the log.'),
    onError: (error) => toast.show(errorMessage(error)),
    onSettled: () => client.invalidateQueries({ queryKey: [...KEYS, hook.id, 'deliveries'] }),
  });
  const columns: Column<WebhookDelivery>[] = [
    {
      key: 'event',
      header: 'Event',
      render: (delivery) => (
        <div className="list-cell">
          <span className="mono">{delivery.event_type}</span>
          <span className="small muted">{formatRelative(delivery.created_at)}</span>
        </div>
      ),
    },
    { key: 'status', header: 'Status', render: (delivery) => <DeliveryStatus delivery={delivery} /> },
    { key: 'attempts', header: 'Attempts', align: 'right', render: (delivery) => delivery.attempts },
    {
      key: 'response',
      header: 'Response',
      render: (delivery) => (
        <div className="list-cell">
          <span>{delivery.response_status ?? '—'}</span>
          {delivery.error ? <span className="small muted">{delivery.error}</span> : null}
        </div>
      ),
    },
    { key: 'duration', header: 'Duration', wideOnly: true, align: 'right', render: (delivery) => (delivery.duration_ms === null ? '—' : `${delivery.duration_ms} ms`) },
    {
      key: 'next',
      header: 'Next attempt',
      wideOnly: true,
      render: (delivery) => (delivery.next_attempt_at ? formatDateTime(delivery.next_attempt_at) : '—'),
    },
    {
      key: 'body',
      header: 'Response body',
      wideOnly: true,
      render: (delivery) => <span className="mono small muted">{(delivery.response_body ?? '').slice(0, 80) || '—'}</span>,
    },
    {
      key: 'redeliver',
      header: <span className="visually-hidden">Actions</span>,
      align: 'right',
      render: (delivery) =>
        delivery.status === 'pending' ? null : (
          <RestrictedButton size="sm" variant="ghost" reason={manage} loading={redeliver.isPending && redeliver.variables?.id === delivery.id} onClick={() => redeliver.mutate(delivery)}>
            Redeliver
          </RestrictedButton>
        ),
    },
  ];
  return (
    <Card title={`Deliveries to ${hook.url}`}>
      <p className="muted">The latest 50. Failed attempts are retried for about a day (15 s, 1 min, 4 min, 16 min, about 1 h, 4 h, 8 h, 8 h); delivered ones are kept 30 days.</p>
      {deliveries.isPending ? (
        <Spinner />
      ) : deliveries.isError ? (
        <ErrorNotice error={deliveries.error} onRetry={() => void deliveries.refetch()} />
      ) : deliveries.data.results.length === 0 ? (
        <EmptyState title="Nothing sent yet">Send a test, or change a flag this endpoint listens to.</EmptyState>
      ) : (
        <Table caption="Deliveries" columns={columns} rows={deliveries.data.results} rowKey={(delivery) => delivery.id} />
      )}
    </Card>
  );
}

export function WebhooksSettings() {
  const client = useQueryClient();
  const toast = useToast();
  const rights = useOrganizationRights();
  const webhookPath = useWebhookPath();
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null);
  const [rotating, setRotating] = useState<Webhook | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const hooks = useQuery({
    queryKey: KEYS,
    queryFn: ({ signal }) => api.get<Paginated<Webhook>>(withQuery(webhookPath(), { limit: 100 }), signal),
  });
  const eventTypes = useQuery({
    queryKey: [...KEYS, 'event-types'],
    queryFn: ({ signal }) => api.get<{ results: string[] }>(webhookPath('event_types/'), signal),
    staleTime: Infinity,
  });
  const test = useMutation({
    mutationFn: (hook: Webhook) => api.post(webhookPath(`${hook.id}/test/`)),
    onSuccess: (_data, hook) => {
      toast.show('Test message queued: see the deliveries log.');
      setSelected(hook.id);
    },
    onError: (error) => toast.show(errorMessage(error)),
    onSettled: (_data, _error, hook) => client.invalidateQueries({ queryKey: [...KEYS, hook.id, 'deliveries'] }),
  });
  const remove = useMutation({
    mutationFn: (hook: Webhook) => api.delete(webhookPath(`${hook.id}/`)),
    onSuccess: () => {
      toast.show('Webhook deleted.');
      setDeleting(null);
    },
    onSettled: () => client.invalidateQueries({ queryKey: KEYS }),
  });
  const manage = rights.manageProject;
  const columns: Column<Webhook>[] = [
    {
      key: 'url',
      header: 'Endpoint',
      render: (hook) => (
        <div className="list-cell">
          <strong className="mono break-anywhere">{hook.url}</strong>
          <span className="small muted">
            {hook.description ? `${hook.description} · ` : ''}
            {hook.format === 'slack' ? 'Slack' : 'JSON'} · secret <span className="mono">{hook.secret}</span>
          </span>
        </div>
      ),
    },
    {
      key: 'events',
      header: 'Events',
      wideOnly: true,
      render: (hook) => (
        <span className="tag-list">
          {hook.events.map((event) => (
            <Badge key={event} tone={event === '*' ? 'primary' : 'neutral'}>
              {event === '*' ? 'Every event' : event}
            </Badge>
          ))}
        </span>
      ),
    },
    { key: 'status', header: 'Status', render: (hook) => <StatusBadge hook={hook} /> },
    {
      key: 'actions',
      header: <span className="visually-hidden">Actions</span>,
      align: 'right',
      render: (hook) => (
        <span className="row webhook-actions">
          <Button size="sm" variant={selected === hook.id ? 'primary' : 'secondary'} onClick={() => setSelected(selected === hook.id ? null : hook.id)} aria-pressed={selected === hook.id}>
            Deliveries
          </Button>
          <RestrictedButton size="sm" reason={manage ?? (hook.enabled ? null : 'Enable the webhook to send a test.')} loading={test.isPending && test.variables?.id === hook.id} onClick={() => test.mutate(hook)}>
            Send test
          </RestrictedButton>
          <RestrictedButton size="sm" variant="ghost" reason={manage} onClick={() => setEditing(hook)}>
            Edit
          </RestrictedButton>
          <RestrictedButton size="sm" variant="ghost" reason={manage} onClick={() => setRotating(hook)}>
            Rotate secret
          </RestrictedButton>
          <RestrictedButton size="sm" variant="ghost" reason={manage} onClick={() => setDeleting(hook)}>
            Delete
          </RestrictedButton>
        </span>
      ),
    },
  ];
  const list = hooks.data?.results ?? [];
  const shown = list.find((hook) => hook.id === selected) ?? null;
  const failing = list.filter((hook) => hook.disabled_reason === 'failing');
  return (
    <div className="stack">
      <Card
        title="Webhooks"
        actions={
          <RestrictedButton size="sm" variant="primary" reason={manage} onClick={() => setEditing('new')}>
            Add endpoint
          </RestrictedButton>
        }
      >
        <p className="muted">Tell other systems (CI, Slack, a warehouse) when flags, surveys and cohorts change. Each request is signed; failures are retried for about a day.</p>
        {failing.length ? (
          <Notice tone="error">
            {failing.length === 1 ? 'One endpoint was' : `${failing.length} endpoints were`} disabled after failing every delivery for 3 days. Fix the receiver, then enable it again.
          </Notice>
        ) : null}
        {hooks.isPending ? (
          <Spinner />
        ) : hooks.isError ? (
          <ErrorNotice error={hooks.error} onRetry={() => void hooks.refetch()} />
        ) : list.length === 0 ? (
          <EmptyState title="No webhooks yet">Add an endpoint to hear about flag changes, survey responses and more.</EmptyState>
        ) : (
          <Table caption="Webhook endpoints" columns={columns} rows={list} rowKey={(hook) => hook.id} />
        )}
      </Card>
      {shown ? <Deliveries hook={shown} manage={manage} /> : null}
      {editing !== null ? (
        <EndpointDialog
          key={editing === 'new' ? 'new' : editing.id}
          hook={editing === 'new' ? null : editing}
          eventTypes={eventTypes.data?.results ?? Object.keys(EVENT_LABELS)}
          open
          onClose={() => setEditing(null)}
        />
      ) : null}
      <RotateDialog hook={rotating} onClose={() => setRotating(null)} />
      <Dialog
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        title="Delete this webhook?"
        footer={
          <>
            <Button onClick={() => setDeleting(null)}>Cancel</Button>
            <Button variant="danger" loading={remove.isPending} onClick={() => deleting && remove.mutate(deleting)}>
              Delete webhook
            </Button>
          </>
        }
      >
        <p>
          Nothing more is sent to <span className="mono break-anywhere">{deleting?.url}</span>, and its deliveries log is deleted with it.
        </p>
        {remove.isError ? <Notice tone="error">{errorMessage(remove.error)}</Notice> : null}
      </Dialog>
    </div>
  );
}
