import type { ReadHandle } from '../../db/pool.ts';
import { ThrottledError } from '../../kernel/errors.ts';
import { readThrottle } from './store.ts';

/**
 * Failed sign-ins allowed in a sliding window, per account and per client address. The address
 * allows more: several people may sign in from behind one address.
 */
export interface ThrottleRule {
  windowMs: number;
  accountLimit: number;
  addressLimit: number;
}

export const DEFAULT_THROTTLE: ThrottleRule = { windowMs: 15 * 60_000, accountLimit: 10, addressLimit: 30 };

export interface ThrottleKey {
  /** `accountOfUser` or `accountOfUnknown`: never a spelling folded in JavaScript. */
  account: string;
  address: string;
}

/**
 * The account an attempt counts against: the user PostgreSQL's lookup matched, whatever spelling
 * of the address matched it (`KİKİ@…`, `kiki@…`), so no spelling escapes the account's count.
 */
export const accountOfUser = (userId: number) => `user:${userId}`;

/** An address that matches no account, as PostgreSQL folded it for the lookup (`lower()`). */
export const accountOfUnknown = (foldedEmail: string) => `email:${foldedEmail}`;

/** 429 with Retry-After while the account or the address has used up its failures. */
export async function ensureNotThrottled(db: ReadHandle, key: ThrottleKey, rule: ThrottleRule): Promise<void> {
  const state = await readThrottle(db, key, rule);
  const until = Math.max(state.accountBlockedUntil?.getTime() ?? 0, state.addressBlockedUntil?.getTime() ?? 0);
  const waitMs = until - state.now.getTime();
  if (waitMs <= 0) return;
  const seconds = Math.ceil(waitMs / 1000);
  throw new ThrottledError(seconds, `Too many failed login attempts. Try again in ${seconds} seconds.`);
}
