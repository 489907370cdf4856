/** SQL of the outbox (webhook_deliveries): what changes write, what the deliveries log reads. */
import type { WriteTx } from '../db/unit-of-work.ts';
import { randomUUID } from 'node:crypto';
import type { ReadHandle } from '../db/pool.ts';

export interface WebhookMessage {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  project_id: number;
  message_id: string;
  event_type: string;
  payload: WebhookMessage;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: Date;
  in_flight_until: Date | null;
  last_attempt_at: Date | null;
  response_status: number | null;
  response_body: string | null;
  duration_ms: number | null;
  error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

export function newMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

/** One pending delivery per endpoint for one message; on the change's own transaction. */
export async function enqueueMessage(db: WriteTx, projectId: number, endpointIds: readonly string[], message: WebhookMessage): Promise<void> {
  if (endpointIds.length === 0) return;
  await db.query(
    `INSERT INTO webhook_deliveries (endpoint_id, project_id, message_id, event_type, payload)
     SELECT endpoint, $2, $3, $4, $5 FROM unnest($1::uuid[]) AS endpoint`,
    [endpointIds, projectId, newMessageId(), message.type, message],
  );
}

/**
 * One message whose `data.project` and `data.actor` PostgreSQL fills in within the insert itself:
 * the change's transaction pays one statement for its outbox rows, with no read before it.
 */
export async function enqueueWithContext(
  db: WriteTx,
  projectId: number,
  endpointIds: readonly string[],
  message: { type: string; timestamp: string; actorId: number | null; data: Record<string, unknown> },
): Promise<void> {
  if (endpointIds.length === 0) return;
  await db.query(
    `INSERT INTO webhook_deliveries (endpoint_id, project_id, message_id, event_type, payload)
     SELECT endpoint, $2, $3, $4, jsonb_build_object('type', $4::text, 'timestamp', $5::text, 'data',
              jsonb_build_object(
                'project', (SELECT jsonb_build_object('id', p.id, 'name', p.name) FROM projects p WHERE p.id = $2),
                'actor', (SELECT jsonb_build_object('id', u.id, 'uuid', u.uuid, 'first_name', u.first_name, 'email', u.email) FROM users u WHERE u.id = $6)
              ) || $7::jsonb)
       FROM unnest($1::uuid[]) AS endpoint`,
    [endpointIds, projectId, newMessageId(), message.type, message.timestamp, message.actorId, JSON.stringify(message.data)],
  );
}

/** A message of a change, to every enabled endpoint of its project that takes its type. */
export interface FoldedMessage {
  projectId: number;
  type: string;
  timestamp: string;
  actorId: number | null;
  data: Record<string, unknown>;
}

/**
 * A CTE body writing `messages` to the endpoints that take them, found by the insert itself (no
 * read before it; none written when no endpoint takes them), `data.project` and `data.actor` filled
 * in as enqueueWithContext does; a row per delivery written. Its parameters are appended to `params`.
 */
export function outboxInsertCte(messages: readonly FoldedMessage[], params: unknown[]): string {
  const at = (value: unknown) => `$${params.push(value)}`;
  const projects = at(messages.map((m) => m.projectId));
  const ids = at(messages.map(() => newMessageId()));
  const types = at(messages.map((m) => m.type));
  const timestamps = at(messages.map((m) => m.timestamp));
  const actors = at(messages.map((m) => m.actorId));
  const data = at(messages.map((m) => JSON.stringify(m.data)));
  return `INSERT INTO webhook_deliveries (endpoint_id, project_id, message_id, event_type, payload)
     SELECT w.id, m.project_id, m.message_id, m.type, jsonb_build_object('type', m.type, 'timestamp', m.at, 'data',
              jsonb_build_object(
                'project', (SELECT jsonb_build_object('id', p.id, 'name', p.name) FROM projects p WHERE p.id = m.project_id),
                'actor', (SELECT jsonb_build_object('id', u.id, 'uuid', u.uuid, 'first_name', u.first_name, 'email', u.email) FROM users u WHERE u.id = m.actor_id)
              ) || m.data::jsonb)
       FROM unnest(${projects}::int[], ${ids}::text[], ${types}::text[], ${timestamps}::text[], ${actors}::int[], ${data}::text[])
              WITH ORDINALITY AS m(project_id, message_id, type, at, actor_id, data, n)
       JOIN webhook_endpoints w ON w.project_id = m.project_id AND w.enabled AND (w.events @> ARRAY[m.type] OR w.events @> ARRAY['*']::text[])
      ORDER BY m.n, w.id
     RETURNING 1`;
}

/** Several messages to the same endpoints in one statement (a batch of survey responses). */
export async function enqueueMessages(db: WriteTx, projectId: number, endpointIds: readonly string[], messages: readonly WebhookMessage[]): Promise<void> {
  if (endpointIds.length === 0 || messages.length === 0) return;
  await db.query(
    `INSERT INTO webhook_deliveries (endpoint_id, project_id, message_id, event_type, payload)
     SELECT endpoint, $2, message.id, message.body ->> 'type', message.body
       FROM unnest($3::text[], $4::jsonb[]) WITH ORDINALITY AS message(id, body, n)
            CROSS JOIN unnest($1::uuid[]) AS endpoint
      ORDER BY message.n, endpoint`,
    [endpointIds, projectId, messages.map(() => newMessageId()), messages.map((message) => JSON.stringify(message))],
  );
}

export async function listDeliveries(
  db: ReadHandle,
  endpointId: string,
  page: { limit: number; offset: number },
): Promise<{ count: number; rows: DeliveryRow[] }> {
  const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [endpointId]);
  const { rows } = await db.query<DeliveryRow>(
    'SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3',
    [endpointId, page.limit, page.offset],
  );
  return { count: count.rows[0].n, rows };
}

export async function findDelivery(db: ReadHandle, projectId: number, id: string, forUpdate = false): Promise<DeliveryRow | null> {
  if (!/^\d{1,18}$/.test(id)) return null;
  const { rows } = await db.query<DeliveryRow>(
    `SELECT * FROM webhook_deliveries WHERE project_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [projectId, id],
  );
  return rows[0] ?? null;
}

/** Sends it again now, as a new delivery of the same message (the same `webhook-id`, so a receiver can tell). */
export async function redeliver(db: WriteTx, row: DeliveryRow): Promise<DeliveryRow> {
  const { rows } = await db.query<DeliveryRow>(
    `INSERT INTO webhook_deliveries (endpoint_id, project_id, message_id, event_type, payload)
     VALUES ($1, $2, $3, $4, $5) RETURNING *`,
    [row.endpoint_id, row.project_id, row.message_id, row.event_type, row.payload],
  );
  return rows[0];
}
