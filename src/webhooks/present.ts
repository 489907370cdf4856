import { isoUtc } from '../kernel/time.ts';
import type { DeliveryRow } from './outbox.ts';
import type { DeliveryResponse, WebhookResponse } from './schemas.ts';
import type { EndpointRow } from './store.ts';

/** `secret`: the whole secret right after create or rotate_secret; the mask otherwise. */
export function presentWebhook(row: EndpointRow, secret: string | null = null): WebhookResponse {
  const previousLive = row.previous_secret_expires_at !== null && row.previous_secret_expires_at.getTime() > Date.now();
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    format: row.format,
    enabled: row.enabled,
    description: row.description,
    secret: secret ?? row.secret_mask,
    previous_secret_expires_at: previousLive ? isoUtc(row.previous_secret_expires_at) : null,
    failing_since: isoUtc(row.failing_since),
    disabled_reason: row.disabled_reason,
    disabled_at: isoUtc(row.disabled_at),
    created_at: isoUtc(row.created_at),
    updated_at: isoUtc(row.updated_at),
  };
}

export function presentDelivery(row: DeliveryRow, now = Date.now()): DeliveryResponse {
  const sending = row.status === 'pending' && row.in_flight_until !== null && row.in_flight_until.getTime() > now;
  return {
    id: String(row.id),
    message_id: row.message_id,
    event_type: row.event_type,
    status: row.status,
    sending,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' && !sending ? isoUtc(row.next_attempt_at) : null,
    last_attempt_at: isoUtc(row.last_attempt_at),
    response_status: row.response_status,
    response_body: row.response_body,
    duration_ms: row.duration_ms,
    error: row.error,
    created_at: isoUtc(row.created_at),
    finished_at: isoUtc(row.finished_at),
    payload: { type: row.payload.type, timestamp: row.payload.timestamp, data: row.payload.data },
  };
}
