import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const PERSONAL_KEY_PREFIX = 'phx_';

/** A new secret value with the given prefix: 32 random bytes, base64url. */
export function generateSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** Keys carry 256 random bits, so a fast hash is as safe as a slow one and keeps auth cheap. */
export function hashSecret(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** What listings show instead of the value: the prefix and the last four characters. */
export function maskSecret(value: string): string {
  return `${value.slice(0, 4)}...${value.slice(-4)}`;
}
