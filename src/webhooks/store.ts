/** SQL of webhook endpoints. */
import type { WriteTx } from '../db/unit-of-work.ts';
import type { ReadHandle } from '../db/pool.ts';

export interface EndpointRow {
  id: string;
  project_id: number;
  url: string;
  events: string[];
  format: 'json' | 'slack';
  enabled: boolean;
  description: string;
  secret: string;
  secret_mask: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  disabled_reason: string | null;
  disabled_at: Date | null;
  created_by_id: number | null;
  created_at: Date;
  updated_at: Date;
}

export interface EndpointValues {
  url: string;
  events: string[];
  format: 'json' | 'slack';
  enabled: boolean;
  description: string;
}

export async function listEndpoints(db: ReadHandle, projectId: number, page: { limit: number; offset: number }): Promise<{ count: number; rows: EndpointRow[] }> {
  const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints WHERE project_id = $1', [projectId]);
  const { rows } = await db.query<EndpointRow>(
    'SELECT * FROM webhook_endpoints WHERE project_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3',
    [projectId, page.limit, page.offset],
  );
  return { count: count.rows[0].n, rows };
}

export async function findEndpoint(db: ReadHandle, projectId: number, id: string, forUpdate = false): Promise<EndpointRow | null> {
  const { rows } = await db.query<EndpointRow>(
    `SELECT * FROM webhook_endpoints WHERE project_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [projectId, id],
  );
  return rows[0] ?? null;
}

export async function insertEndpoint(
  db: WriteTx,
  projectId: number,
  values: EndpointValues,
  secret: { stored: string; mask: string },
  userId: number,
): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (project_id, url, events, format, enabled, description, secret, secret_mask, created_by_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
    [projectId, values.url, values.events, values.format, values.enabled, values.description, secret.stored, secret.mask, userId],
  );
  return rows[0];
}

/** Re-enabling clears the automatic disabling and the failure streak. */
export async function updateEndpoint(db: WriteTx, id: string, values: EndpointValues): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints
        SET url = $2, events = $3, format = $4, enabled = $5, description = $6, updated_at = now(),
            disabled_reason = CASE WHEN $5 THEN NULL ELSE disabled_reason END,
            disabled_at = CASE WHEN $5 THEN NULL ELSE disabled_at END,
            failing_since = CASE WHEN $5 AND NOT enabled THEN NULL ELSE failing_since END
      WHERE id = $1 RETURNING *`,
    [id, values.url, values.events, values.format, values.enabled, values.description],
  );
  return rows[0];
}

/** The new secret signs from now; the current one keeps signing beside it until `previousUntil`. */
export async function rotateEndpointSecret(db: WriteTx, id: string, secret: { stored: string; mask: string }, previousUntil: Date): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints
        SET previous_secret = secret, previous_secret_expires_at = $4, secret = $2, secret_mask = $3, updated_at = now()
      WHERE id = $1 RETURNING *`,
    [id, secret.stored, secret.mask, previousUntil],
  );
  return rows[0];
}

export async function deleteEndpoint(db: WriteTx, id: string): Promise<void> {
  await db.query('DELETE FROM webhook_endpoints WHERE id = $1', [id]);
}

/** The enabled endpoints of a project that take `eventType` (listed, or `*`). */
export async function subscribedEndpoints(db: ReadHandle, projectId: number, eventType: string): Promise<{ id: string }[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM webhook_endpoints WHERE project_id = $1 AND enabled AND (events @> ARRAY[$2]::text[] OR events @> ARRAY['*']::text[]) ORDER BY id`,
    [projectId, eventType],
  );
  return rows;
}
