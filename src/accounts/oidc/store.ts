import type { WriteTx } from '../../db/unit-of-work.ts';
import type { ReadHandle } from '../../db/pool.ts';

export async function insertPendingSignIn(
  db: WriteTx,
  pending: { stateHash: string; verifierHash: string; nonce: string; address: string; ttlMs: number },
): Promise<void> {
  await db.query('DELETE FROM oidc_sign_ins WHERE expires_at < now()');
  await db.query(
    `INSERT INTO oidc_sign_ins (state_hash, verifier_hash, nonce, address, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5::double precision / 1000))`,
    [pending.stateHash, pending.verifierHash, pending.nonce, pending.address, pending.ttlMs],
  );
}

/** Sign-ins the address started that are still on their way (finished ones are deleted by their callback). */
export async function countPendingOf(db: ReadHandle, address: string, atMost: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM oidc_sign_ins WHERE address = $1 AND expires_at > now() LIMIT $2) AS open`,
    [address, atMost],
  );
  return rows[0].n;
}

/** Uses the pending sign-in up, live or not: null when there was none, else whether it was still live. */
export async function takePendingSignIn(
  db: WriteTx,
  stateHash: string,
): Promise<{ verifierHash: string; nonce: string; live: boolean } | null> {
  const { rows } = await db.query<{ verifierHash: string; nonce: string; live: boolean }>(
    `DELETE FROM oidc_sign_ins WHERE state_hash = $1
     RETURNING verifier_hash AS "verifierHash", nonce, expires_at > now() AS live`,
    [stateHash],
  );
  return rows[0] ?? null;
}

export async function findIdentityUser(db: WriteTx, issuer: string, subject: string): Promise<number | null> {
  const { rows } = await db.query<{ user_id: number }>(
    'UPDATE user_identities SET last_used_at = now() WHERE issuer = $1 AND subject = $2 RETURNING user_id',
    [issuer, subject],
  );
  return rows[0]?.user_id ?? null;
}

export async function insertIdentity(db: WriteTx, identity: { issuer: string; subject: string; userId: number; email: string }): Promise<void> {
  await db.query('INSERT INTO user_identities (issuer, subject, user_id, email) VALUES ($1, $2, $3, $4)', [
    identity.issuer,
    identity.subject,
    identity.userId,
    identity.email,
  ]);
}

/** The organization people signing in for the first time join: the one holding project 1 (the first project). */
export async function findHomeOrganization(db: ReadHandle): Promise<{ organizationId: string; projectId: number } | null> {
  const { rows } = await db.query<{ organizationId: string; projectId: number }>(
    'SELECT organization_id::text AS "organizationId", id AS "projectId" FROM projects ORDER BY id LIMIT 1',
  );
  return rows[0] ?? null;
}

export async function markEmailVerified(db: WriteTx, userId: number): Promise<void> {
  await db.query('UPDATE users SET is_email_verified = true WHERE id = $1', [userId]);
}
