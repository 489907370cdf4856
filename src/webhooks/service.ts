/** The rules of webhook endpoints: who may manage them, what a valid one is, secrets, test pings, redelivery. */
import { membershipLevel, type Principal, type ProjectRef } from '../accounts/auth/principal.ts';
import { requireProjectAdmin } from '../accounts/members/rules.ts';
import { notFound, orNotFound, validationError } from '../kernel/errors.ts';
import { isoUtc } from '../kernel/time.ts';
import { DestinationRefused, parseWebhookUrl, resolveDestination } from './delivery/destination.ts';
import type { WebhookDeps } from './deps.ts';
import { EVENT_TYPE_NAMES, PING_EVENT } from './events/registry.ts';
import { messageContext } from './events/context.ts';
import { enqueueMessage, findDelivery, redeliver, type DeliveryRow } from './outbox.ts';
import type { WebhookCreateBody, WebhookUpdateBody } from './schemas.ts';
import { generateWebhookSecret, maskSecret } from './secrets.ts';
import { deleteEndpoint, findEndpoint, insertEndpoint, rotateEndpointSecret, updateEndpoint, type EndpointRow, type EndpointValues } from './store.ts';

/** After a rotation the previous secret signs beside the new one this long. */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function requireWebhookAdmin(principal: Principal, project: ProjectRef): void {
  requireProjectAdmin(membershipLevel(principal, project.organizationId));
}

function cleanEvents(events: readonly string[]): string[] {
  if (events.length === 0) throw validationError('Pick at least one event type, or "*" for every one.', 'events', 'empty');
  const known = new Set(EVENT_TYPE_NAMES);
  for (const event of events) {
    if (event !== '*' && !known.has(event)) throw validationError(`"${event.slice(0, 100)}" is not a valid choice.`, 'events', 'invalid_choice');
  }
  if (events.includes('*')) return ['*'];
  return [...new Set(events)];
}

async function cleanUrl(deps: WebhookDeps, raw: string): Promise<string> {
  try {
    const url = parseWebhookUrl(raw.trim(), deps.allowedHosts);
    await resolveDestination(url, deps.allowedHosts, deps.resolve);
    return url.href;
  } catch (error) {
    if (error instanceof DestinationRefused) throw validationError(error.message, 'url', 'invalid_url');
    throw error;
  }
}

function cleanDescription(description: string | undefined): string {
  return (description ?? '').trim();
}

export async function requireEndpoint(deps: WebhookDeps, projectId: number, id: string): Promise<EndpointRow> {
  return orNotFound(UUID.test(id) ? await findEndpoint(deps.pool, projectId, id.toLowerCase()) : null);
}

export async function createWebhook(deps: WebhookDeps, project: ProjectRef, userId: number, body: WebhookCreateBody): Promise<{ row: EndpointRow; secret: string }> {
  const values: EndpointValues = {
    url: await cleanUrl(deps, body.url),
    events: cleanEvents(body.events),
    format: body.format ?? 'json',
    enabled: body.enabled ?? true,
    description: cleanDescription(body.description),
  };
  const secret = generateWebhookSecret();
  const row = await deps.units.run((unit) => insertEndpoint(unit.client, project.id, values, { stored: deps.secrets.seal(secret), mask: maskSecret(secret) }, userId));
  return { row, secret };
}

export async function updateWebhook(deps: WebhookDeps, project: ProjectRef, id: string, body: WebhookUpdateBody): Promise<EndpointRow> {
  const url = body.url === undefined ? undefined : await cleanUrl(deps, body.url);
  const events = body.events === undefined ? undefined : cleanEvents(body.events);
  return deps.units.run(async (unit) => {
    const current = UUID.test(id) ? await findEndpoint(unit.client, project.id, id.toLowerCase(), true) : null;
    if (!current) throw notFound();
    return updateEndpoint(unit.client, current.id, {
      url: url ?? current.url,
      events: events ?? current.events,
      format: body.format ?? current.format,
      enabled: body.enabled ?? current.enabled,
      description: body.description === undefined ? current.description : cleanDescription(body.description),
    });
  });
}

export async function removeWebhook(deps: WebhookDeps, project: ProjectRef, id: string): Promise<void> {
  const row = await requireEndpoint(deps, project.id, id);
  await deps.units.run((unit) => deleteEndpoint(unit.client, row.id));
}

export async function rotateWebhookSecret(deps: WebhookDeps, project: ProjectRef, id: string): Promise<{ row: EndpointRow; secret: string }> {
  const current = await requireEndpoint(deps, project.id, id);
  const secret = generateWebhookSecret();
  const row = await deps.units.run((unit) =>
    rotateEndpointSecret(unit.client, current.id, { stored: deps.secrets.seal(secret), mask: maskSecret(secret) }, new Date(Date.now() + PREVIOUS_SECRET_MS)),
  );
  return { row, secret };
}

/** `webhook.ping` through the outbox like any event; a disabled endpoint is sent nothing. */
export async function sendTestPing(deps: WebhookDeps, project: ProjectRef, id: string, userId: number): Promise<void> {
  const row = await requireEndpoint(deps, project.id, id);
  if (!row.enabled) throw validationError('This webhook is disabled: enable it to send a test.', 'enabled', 'disabled');
  await deps.units.run(async (unit) => {
    const context = await messageContext(unit.client, project.id, userId);
    await enqueueMessage(unit.client, project.id, [row.id], {
      type: PING_EVENT,
      timestamp: isoUtc(new Date()),
      data: { ...context, object: { webhook_id: row.id, url: row.url } },
    });
    unit.afterCommit(deps.wake);
  });
}

export async function redeliverDelivery(deps: WebhookDeps, project: ProjectRef, endpointId: string, deliveryId: string): Promise<DeliveryRow> {
  const endpoint = await requireEndpoint(deps, project.id, endpointId);
  return deps.units.run(async (unit) => {
    const delivery = await findDelivery(unit.client, project.id, deliveryId);
    if (!delivery || delivery.endpoint_id !== endpoint.id) throw notFound();
    const fresh = await redeliver(unit.client, delivery);
    unit.afterCommit(deps.wake);
    return fresh;
  });
}
