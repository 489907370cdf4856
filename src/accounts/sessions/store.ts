import type { ReadHandle } from '../../db/pool.ts';
import type { WriteHandle, WriteTx } from '../../db/unit-of-work.ts';

export interface NewSession {
  idHash: string;
  userId: number;
  csrfHash: string;
  maxAgeMs: number;
}

/** Also drops every session past its absolute limit, so the table holds only live ones and a few idle ones. */
export async function insertSession(db: WriteTx, session: NewSession): Promise<void> {
  await db.query('DELETE FROM sessions WHERE expires_at < now()');
  await db.query(
    `INSERT INTO sessions (id_hash, user_id, csrf_hash, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4::double precision / 1000))`,
    [session.idHash, session.userId, session.csrfHash, session.maxAgeMs],
  );
}

export async function deleteSession(db: WriteTx, idHash: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM sessions WHERE id_hash = $1', [idHash]);
  return (rowCount ?? 0) > 0;
}

export async function deleteSessionsOfUser(db: WriteTx, userId: number): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sessions WHERE user_id = $1', [userId]);
  return rowCount ?? 0;
}

/** Every session of the user but `keep` (the one making the request, when there is one). */
export async function deleteOtherSessionsOfUser(db: WriteTx, userId: number, keep: string | null): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sessions WHERE user_id = $1 AND id_hash IS DISTINCT FROM $2', [userId, keep]);
  return rowCount ?? 0;
}

export async function insertSignInToken(db: WriteHandle, token: { hash: string; userId: number; ttlMs: number }): Promise<void> {
  await db.query('DELETE FROM sign_in_tokens WHERE expires_at < now()');
  await db.query(
    `INSERT INTO sign_in_tokens (token_hash, user_id, expires_at)
     VALUES ($1, $2, now() + make_interval(secs => $3::double precision / 1000))`,
    [token.hash, token.userId, token.ttlMs],
  );
}

/** Uses the token up: its user when it existed and had not expired, else null. Single use even under races. */
export async function consumeSignInToken(db: WriteTx, hash: string): Promise<number | null> {
  const { rows } = await db.query<{ user_id: number; live: boolean }>(
    'DELETE FROM sign_in_tokens WHERE token_hash = $1 RETURNING user_id, expires_at > now() AS live',
    [hash],
  );
  return rows[0]?.live ? rows[0].user_id : null;
}

export interface LoginUser {
  id: number;
  password_hash: string | null;
}

/** The account the address names (PostgreSQL's `lower()` on both sides), and the address as that fold spells it. */
export async function findLoginUser(db: ReadHandle, email: string): Promise<{ user: LoginUser | null; folded: string }> {
  const { rows } = await db.query<{ id: number | null; password_hash: string | null; folded: string }>(
    `SELECT u.id, u.password_hash, lower($1) AS folded
       FROM (SELECT 1) AS one LEFT JOIN users u ON lower(u.email) = lower($1)`,
    [email],
  );
  const row = rows[0];
  return { user: row.id === null ? null : { id: row.id, password_hash: row.password_hash }, folded: row.folded };
}

export async function recordLogin(db: WriteTx, userId: number): Promise<void> {
  await db.query('UPDATE users SET last_login = now() WHERE id = $1', [userId]);
}

/** The moment, in the database's clock, when `limit` failures in the window will no longer all be in it. */
export interface ThrottleState {
  accountBlockedUntil: Date | null;
  addressBlockedUntil: Date | null;
  now: Date;
}

export async function readThrottle(
  db: ReadHandle,
  key: { account: string; address: string },
  rule: { windowMs: number; accountLimit: number; addressLimit: number },
): Promise<ThrottleState> {
  const { rows } = await db.query<ThrottleState>(
    `WITH w AS (SELECT now() - make_interval(secs => $3::double precision / 1000) AS since)
     SELECT (SELECT attempted_at FROM login_failures, w WHERE account = $1 AND attempted_at > w.since
              ORDER BY attempted_at DESC OFFSET $4 - 1 LIMIT 1) + make_interval(secs => $3::double precision / 1000)
              AS "accountBlockedUntil",
            (SELECT attempted_at FROM login_failures, w WHERE address = $2 AND attempted_at > w.since
              ORDER BY attempted_at DESC OFFSET $5 - 1 LIMIT 1) + make_interval(secs => $3::double precision / 1000)
              AS "addressBlockedUntil",
            now() AS now`,
    [key.account, key.address, rule.windowMs, rule.accountLimit, rule.addressLimit],
  );
  return rows[0];
}

/** One failed sign-in; failures older than the window are dropped on the way. */
export async function recordFailure(db: WriteTx, key: { account: string; address: string }, windowMs: number): Promise<void> {
  await db.query(
    `WITH old AS (DELETE FROM login_failures WHERE attempted_at < now() - make_interval(secs => $3::double precision / 1000))
     INSERT INTO login_failures (account, address) VALUES ($1, $2)`,
    [key.account, key.address, windowMs],
  );
}

/** A successful sign-in forgets the account's failures (not the address's: one good account must not unlock it). */
export async function clearAccountFailures(db: WriteTx, account: string): Promise<void> {
  await db.query('UPDATE login_failures SET account = NULL WHERE account = $1', [account]);
}
