import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt with Django's parameters (N = 2^14, r = 8, p = 1: 16 MiB and about 0.1 s here). They are
 * stored in each hash, so raising them later keeps old hashes verifiable. Hashing runs on libuv's
 * thread pool (4 threads), which also bounds the memory of concurrent sign-ins.
 */
const LOG2_N = 14;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;
/** Stored hashes with a cost above this are refused rather than computed (a tampered row). */
const MAX_LOG2_N = 20;

function derive(password: string, salt: Buffer, options: { log2N: number; r: number; p: number }): Promise<Buffer> {
  const scryptOptions: ScryptOptions = {
    N: 2 ** options.log2N,
    r: options.r,
    p: options.p,
    maxmem: 2 * 128 * 2 ** options.log2N * options.r * options.p,
  };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, scryptOptions, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, { log2N: LOG2_N, r: BLOCK_SIZE, p: PARALLELISM });
  return ['scrypt', LOG2_N, BLOCK_SIZE, PARALLELISM, salt.toString('base64'), key.toString('base64')].join('$');
}

interface ParsedHash {
  log2N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function parseHash(stored: string): ParsedHash | null {
  const [scheme, log2N, r, p, salt, key] = stored.split('$');
  const numbers = [log2N, r, p].map(Number);
  if (scheme !== 'scrypt' || numbers.some((n) => !Number.isInteger(n) || n < 1) || !salt || !key) return null;
  if (numbers[0] > MAX_LOG2_N || numbers[1] > 32 || numbers[2] > 16) return null;
  return { log2N: numbers[0], r: numbers[1], p: numbers[2], salt: Buffer.from(salt, 'base64'), key: Buffer.from(key, 'base64') };
}

/**
 * A hash of a password nobody knows, with the current parameters: verifying against it costs what
 * verifying a real password costs, so an unknown e-mail answers in the same time as a wrong password.
 */
let dummyHash: Promise<string> | null = null;
function dummy(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(32).toString('base64url'));
  return dummyHash;
}

/** Whether `password` matches `stored`; with no stored hash, the same work is done and the answer is no. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parsed = parseHash(stored ?? (await dummy()));
  if (!parsed) {
    await verifyPassword(password, null);
    return false;
  }
  const key = await derive(password, parsed.salt, parsed);
  return stored !== null && key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
}
