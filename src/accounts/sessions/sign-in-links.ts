import { randomBytes } from 'node:crypto';
import { hashSecret } from '../auth/keys.ts';
import { insertSignInToken } from './store.ts';
import type { WriteHandle } from '../../db/unit-of-work.ts';

export const SIGN_IN_LINK_TTL_MS = 24 * 3_600_000;

/** A single-use token that signs `userId` in within 24 hours; stored as its hash. */
export async function createSignInToken(db: WriteHandle, userId: number): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await insertSignInToken(db, { hash: hashSecret(token), userId, ttlMs: SIGN_IN_LINK_TTL_MS });
  return token;
}

/** The console page that posts the token; in the fragment, so that it never reaches a server's log. */
export function signInLink(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/login/one-time#token=${token}`;
}
