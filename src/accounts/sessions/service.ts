import { randomBytes } from 'node:crypto';
import type { UnitOfWork, UnitsOfWork, WriteTx } from '../../db/unit-of-work.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { hashSecret } from '../auth/keys.ts';
import type { ChangeBus } from '../../kernel/changes/bus.ts';
import { deleteOtherSessionsOfUser, deleteSession, deleteSessionsOfUser, insertSession, recordLogin } from './store.ts';

/** What the cookies carry, in clear: handed to the browser once and stored only as hashes. */
export interface StartedSession {
  id: string;
  csrfToken: string;
  maxAgeSeconds: number;
}

/** A new session for the user, its id and CSRF token fresh random values (never one the client chose). */
export async function startSession(db: WriteTx, authenticator: Authenticator, userId: number): Promise<StartedSession> {
  const id = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const { maxAgeMs } = authenticator.sessionLimits;
  await insertSession(db, { idHash: hashSecret(id), userId, csrfHash: hashSecret(csrfToken), maxAgeMs });
  await recordLogin(db, userId);
  return { id, csrfToken, maxAgeSeconds: Math.floor(maxAgeMs / 1000) };
}

/** Ends every session of the user, in the caller's unit of work; every process drops them from its cache when it commits. */
export async function endSessionsOfUser(unit: UnitOfWork, bus: ChangeBus, userId: number): Promise<void> {
  if ((await deleteSessionsOfUser(unit.client, userId)) > 0) await bus.publish(unit, { kind: 'auth' });
}

/** After a password change: every session of the user ends but the one that made the change. */
export async function endOtherSessionsOfUser(unit: UnitOfWork, bus: ChangeBus, userId: number, keep: string | null): Promise<void> {
  if ((await deleteOtherSessionsOfUser(unit.client, userId, keep)) > 0) await bus.publish(unit, { kind: 'auth' });
}

/** Signs one session out, here at once and in every other process by change notice. */
export async function endSession(units: UnitsOfWork, bus: ChangeBus, sessionHash: string): Promise<void> {
  await units.run(async (unit) => {
    if (await deleteSession(unit.client, sessionHash)) await bus.publish(unit, { kind: 'auth' });
  });
}
