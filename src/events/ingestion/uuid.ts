import { randomFillSync } from 'node:crypto';

const CANONICAL = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The lower-case canonical form of a UUID string, or null when it is not one. */
export function canonicalUuid(value: string): string | null {
  return CANONICAL.test(value) ? value.toLowerCase() : null;
}

// Random bytes drawn in blocks: one system call per 256 ids.
const random = Buffer.alloc(16 * 256);
let randomOffset = random.length;

/** A fresh UUID version 7: 48 bits of Unix milliseconds, then random bits (time-ordered). */
export function uuidv7(nowMs: number = Date.now()): string {
  if (randomOffset + 16 > random.length) {
    randomFillSync(random);
    randomOffset = 0;
  }
  const bytes = random.subarray(randomOffset, randomOffset + 16);
  randomOffset += 16;
  const high = Math.floor(nowMs / 0x1_0000_0000);
  const low = nowMs >>> 0;
  bytes[0] = (high >>> 8) & 0xff;
  bytes[1] = high & 0xff;
  bytes[2] = (low >>> 24) & 0xff;
  bytes[3] = (low >>> 16) & 0xff;
  bytes[4] = (low >>> 8) & 0xff;
  bytes[5] = low & 0xff;
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
