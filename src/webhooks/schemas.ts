import { Type, type Static } from 'typebox';
import { paginatedOf, PaginationQuery } from '../kernel/http/pagination.ts';

export const ProjectParams = Type.Object({ project_id: Type.String() });
export const WebhookParams = Type.Object({ project_id: Type.String(), id: Type.String() });
export const DeliveryParams = Type.Object({ project_id: Type.String(), id: Type.String(), delivery_id: Type.String() });

const Format = Type.Union([Type.Literal('json'), Type.Literal('slack')]);

export const WebhookCreateBody = Type.Object(
  {
    url: Type.String({ description: 'https URL (plain http only for hosts in WEBHOOK_ALLOWED_HOSTS)' }),
    events: Type.Array(Type.String(), { maxItems: 50, description: 'Event types, or ["*"] for every one' }),
    format: Type.Optional(Format),
    enabled: Type.Optional(Type.Boolean()),
    description: Type.Optional(Type.String({ maxLength: 400 })),
  },
  { additionalProperties: false },
);
export type WebhookCreateBody = Static<typeof WebhookCreateBody>;

export const WebhookUpdateBody = Type.Partial(WebhookCreateBody, { additionalProperties: false });
export type WebhookUpdateBody = Static<typeof WebhookUpdateBody>;

export const WebhookResponse = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  format: Format,
  enabled: Type.Boolean(),
  description: Type.String(),
  secret: Type.String({ description: 'The whole secret only in the answer of create and rotate_secret; masked after' }),
  previous_secret_expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  failing_since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  disabled_reason: Type.Union([Type.String(), Type.Null()]),
  disabled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type WebhookResponse = Static<typeof WebhookResponse>;

export const WebhookListResponse = paginatedOf(WebhookResponse);

export const DeliveryResponse = Type.Object({
  id: Type.String(),
  message_id: Type.String(),
  event_type: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  /** An attempt is in flight now. */
  sending: Type.Boolean(),
  attempts: Type.Integer(),
  next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  response_status: Type.Union([Type.Integer(), Type.Null()]),
  response_body: Type.Union([Type.String(), Type.Null()]),
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  payload: Type.Record(Type.String(), Type.Unknown()),
});
export type DeliveryResponse = Static<typeof DeliveryResponse>;

export const DeliveryListResponse = paginatedOf(DeliveryResponse);
export const DeliveryListQuery = PaginationQuery;

export const EventTypesResponse = Type.Object({ results: Type.Array(Type.String()) });

export const QueuedResponse = Type.Object({ queued: Type.Boolean() });
