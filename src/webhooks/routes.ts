/** `/api/projects/:project_id/webhooks`: endpoints, their secrets, test pings, the deliveries log and redelivery. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { refuseOtherMethodsOn } from '../kernel/http/method-not-allowed.ts';
import { listPage, PaginationQuery } from '../kernel/http/pagination.ts';
import type { WebhookDeps } from './deps.ts';
import { EVENT_TYPE_NAMES } from './events/registry.ts';
import { listDeliveries } from './outbox.ts';
import { presentDelivery, presentWebhook } from './present.ts';
import {
  DeliveryListQuery,
  DeliveryListResponse,
  DeliveryParams,
  DeliveryResponse,
  EventTypesResponse,
  QueuedResponse,
  ProjectParams,
  WebhookCreateBody,
  WebhookListResponse,
  WebhookParams,
  WebhookResponse,
  WebhookUpdateBody,
} from './schemas.ts';
import {
  createWebhook,
  redeliverDelivery,
  removeWebhook,
  requireEndpoint,
  requireWebhookAdmin,
  rotateWebhookSecret,
  sendTestPing,
  updateWebhook,
} from './service.ts';
import { listEndpoints } from './store.ts';

const TAGS = ['webhooks'];

export function webhookRoutes(deps: WebhookDeps) {
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethodsOn(root, {
      '/': ['GET', 'POST'], '/event_types': ['GET'], '/:id': ['GET', 'PATCH', 'DELETE'], '/:id/rotate_secret': ['POST'], '/:id/test': ['POST'],
      '/:id/deliveries': ['GET'], '/:id/deliveries/:delivery_id/redeliver': ['POST'],
    });

    app.get(
      '/',
      {
        config: { scope: 'webhook:read' },
        schema: { tags: TAGS, summary: 'List webhook endpoints, newest first', params: ProjectParams, querystring: PaginationQuery, response: { 200: WebhookListResponse } },
      },
      async (request) => {
        return listPage(request, request.query, (page) => listEndpoints(deps.pool, request.project.id, page), (row) => presentWebhook(row));
      },
    );

    app.get(
      '/event_types',
      {
        config: { scope: 'webhook:read' },
        schema: { tags: TAGS, summary: 'The event types a webhook can subscribe to', params: ProjectParams, response: { 200: EventTypesResponse } },
      },
      async () => ({ results: [...EVENT_TYPE_NAMES] }),
    );

    app.post(
      '/',
      {
        config: { scope: 'webhook:write' },
        schema: {
          tags: TAGS,
          summary: 'Create a webhook endpoint; the answer holds its signing secret, shown this once',
          params: ProjectParams,
          body: WebhookCreateBody,
          response: { 201: WebhookResponse },
        },
      },
      async (request, reply) => {
        requireWebhookAdmin(request.principal, request.project);
        const { row, secret } = await createWebhook(deps, request.project, request.principal.user.id, request.body);
        return reply.code(201).send(presentWebhook(row, secret));
      },
    );

    app.get(
      '/:id',
      {
        config: { scope: 'webhook:read' },
        schema: { tags: TAGS, summary: 'Retrieve a webhook endpoint (secret masked)', params: WebhookParams, response: { 200: WebhookResponse } },
      },
      async (request) => presentWebhook(await requireEndpoint(deps, request.project.id, request.params.id)),
    );

    app.patch(
      '/:id',
      {
        config: { scope: 'webhook:write' },
        schema: {
          tags: TAGS,
          summary: 'Update a webhook endpoint; enabling it again clears an automatic disabling',
          params: WebhookParams,
          body: WebhookUpdateBody,
          response: { 200: WebhookResponse },
        },
      },
      async (request) => {
        requireWebhookAdmin(request.principal, request.project);
        return presentWebhook(await updateWebhook(deps, request.project, request.params.id, request.body));
      },
    );

    app.delete(
      '/:id',
      {
        config: { scope: 'webhook:write' },
        schema: { tags: TAGS, summary: 'Delete a webhook endpoint and its deliveries', params: WebhookParams },
      },
      async (request, reply) => {
        requireWebhookAdmin(request.principal, request.project);
        await removeWebhook(deps, request.project, request.params.id);
        return reply.code(204).send();
      },
    );

    app.post(
      '/:id/rotate_secret',
      {
        config: { scope: 'webhook:write' },
        schema: {
          tags: TAGS,
          summary: 'A new signing secret, shown this once; the previous one keeps signing beside it for 24 h',
          params: WebhookParams,
          response: { 200: WebhookResponse },
        },
      },
      async (request) => {
        requireWebhookAdmin(request.principal, request.project);
        const { row, secret } = await rotateWebhookSecret(deps, request.project, request.params.id);
        return presentWebhook(row, secret);
      },
    );

    app.post(
      '/:id/test',
      {
        config: { scope: 'webhook:write' },
        schema: { tags: TAGS, summary: 'Send a `webhook.ping` message (see the deliveries log for its fate)', params: WebhookParams, response: { 202: QueuedResponse } },
      },
      async (request, reply) => {
        requireWebhookAdmin(request.principal, request.project);
        await sendTestPing(deps, request.project, request.params.id, request.principal.user.id);
        return reply.code(202).send({ queued: true });
      },
    );

    app.get(
      '/:id/deliveries',
      {
        config: { scope: 'webhook:read' },
        schema: {
          tags: TAGS,
          summary: "The endpoint's deliveries, newest first (kept 30 days after they finish)",
          params: WebhookParams,
          querystring: DeliveryListQuery,
          response: { 200: DeliveryListResponse },
        },
      },
      async (request) => {
        const endpoint = await requireEndpoint(deps, request.project.id, request.params.id);
        return listPage(request, request.query, (page) => listDeliveries(deps.pool, endpoint.id, page), presentDelivery);
      },
    );

    app.post(
      '/:id/deliveries/:delivery_id/redeliver',
      {
        config: { scope: 'webhook:write' },
        schema: {
          tags: TAGS,
          summary: 'Send a delivered or failed message again, as a new delivery with the same webhook-id',
          params: DeliveryParams,
          response: { 202: DeliveryResponse },
        },
      },
      async (request, reply) => {
        requireWebhookAdmin(request.principal, request.project);
        const fresh = await redeliverDelivery(deps, request.project, request.params.id, request.params.delivery_id);
        return reply.code(202).send(presentDelivery(fresh));
      },
    );
  };
}
