import type { ReadHandle } from '../../db/pool.ts';
import { findUser } from './store.ts';
import { toUserSummary, type UserSummary } from './user-summary.ts';

/** A user as other records embed them (a job acting for the user who asked for it), or null when gone. */
export async function userSummaryById(db: ReadHandle, id: number): Promise<UserSummary | null> {
  const user = await findUser(db, id);
  return user === null ? null : toUserSummary(user);
}
