import type { ReadHandle } from '../../db/pool.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';
import { hashSecret, maskSecret } from '../auth/keys.ts';

export interface PersonalApiKeyRow {
  id: string;
  user_id: number;
  label: string;
  mask_value: string;
  scopes: string[];
  scoped_teams: number[] | null;
  scoped_organizations: string[] | null;
  created_at: Date;
  last_used_at: Date | null;
  last_rolled_at: Date | null;
}

const KEY_COLUMNS =
  'id, user_id, label, mask_value, scopes, scoped_teams, scoped_organizations::text[] AS scoped_organizations, created_at, last_used_at, last_rolled_at';

export interface NewPersonalApiKey {
  userId: number;
  label: string;
  value: string;
  scopes: string[];
  scopedTeams: number[] | null;
  scopedOrganizations: string[] | null;
}

export async function insertPersonalApiKey(db: WriteTx, key: NewPersonalApiKey): Promise<PersonalApiKeyRow> {
  const { rows } = await db.query<PersonalApiKeyRow>(
    `INSERT INTO personal_api_keys (user_id, label, secure_value, mask_value, scopes, scoped_teams, scoped_organizations)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${KEY_COLUMNS}`,
    [key.userId, key.label, hashSecret(key.value), maskSecret(key.value), key.scopes, key.scopedTeams, key.scopedOrganizations],
  );
  return rows[0];
}

export async function keyExistsWithValue(db: ReadHandle, value: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM personal_api_keys WHERE secure_value = $1', [hashSecret(value)]);
  return (rowCount ?? 0) > 0;
}

export async function countKeys(db: ReadHandle): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM personal_api_keys');
  return rows[0].n;
}

export async function listKeysOfUser(
  db: ReadHandle,
  userId: number,
  page: { limit: number; offset: number },
): Promise<{ count: number; rows: PersonalApiKeyRow[] }> {
  const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM personal_api_keys WHERE user_id = $1', [userId]);
  const { rows } = await db.query<PersonalApiKeyRow>(
    `SELECT ${KEY_COLUMNS} FROM personal_api_keys WHERE user_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`,
    [userId, page.limit, page.offset],
  );
  return { count: count.rows[0].n, rows };
}

export async function deleteKeyOfUser(db: WriteTx, userId: number, keyId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM personal_api_keys WHERE id = $1 AND user_id = $2', [keyId, userId]);
  return (rowCount ?? 0) > 0;
}

export async function findKeyOfUser(db: ReadHandle, userId: number, keyId: string): Promise<PersonalApiKeyRow | null> {
  const { rows } = await db.query<PersonalApiKeyRow>(
    `SELECT ${KEY_COLUMNS} FROM personal_api_keys WHERE id = $1 AND user_id = $2`,
    [keyId, userId],
  );
  return rows[0] ?? null;
}
