import type { WriteTx } from '../../db/unit-of-work.ts';
import type { ReadHandle } from '../../db/pool.ts';

export async function insertResetToken(db: WriteTx, token: { hash: string; userId: number; ttlMs: number }): Promise<void> {
  await db.query('DELETE FROM password_reset_tokens WHERE expires_at < now()');
  await db.query(
    `INSERT INTO password_reset_tokens (token_hash, user_id, expires_at)
     VALUES ($1, $2, now() + make_interval(secs => $3::double precision / 1000))`,
    [token.hash, token.userId, token.ttlMs],
  );
}

/** The live token's user, without using it up (the new password is checked first). */
export async function peekResetToken(db: ReadHandle, hash: string): Promise<number | null> {
  const { rows } = await db.query<{ user_id: number }>('SELECT user_id FROM password_reset_tokens WHERE token_hash = $1 AND expires_at > now()', [hash]);
  return rows[0]?.user_id ?? null;
}

/** Uses the token up, and every other of its person: their user when it was live, else null. Single use under races. */
export async function consumeResetToken(db: WriteTx, hash: string): Promise<number | null> {
  const { rows } = await db.query<{ user_id: number; live: boolean }>(
    'DELETE FROM password_reset_tokens WHERE token_hash = $1 RETURNING user_id, expires_at > now() AS live',
    [hash],
  );
  const row = rows[0];
  if (!row?.live) return null;
  await db.query('DELETE FROM password_reset_tokens WHERE user_id = $1', [row.user_id]);
  return row.user_id;
}

/** The person an address names, as sign-in finds them (`lower()` on both sides), and the address as that fold spells it. */
export async function findResetUser(db: ReadHandle, email: string): Promise<{ user: { id: number; email: string } | null; folded: string }> {
  const { rows } = await db.query<{ id: number | null; email: string | null; folded: string }>(
    `SELECT u.id, u.email, lower($1) AS folded FROM (SELECT 1) AS one LEFT JOIN users u ON lower(u.email) = lower($1)`,
    [email],
  );
  const row = rows[0];
  return { user: row.id === null || row.email === null ? null : { id: row.id, email: row.email }, folded: row.folded };
}
