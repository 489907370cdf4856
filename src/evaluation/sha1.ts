/**
 * SHA-1 of short texts (UTF-8), answering only what bucketing reads: the first 60 bits of the
 * digest as a number. Written out because the bucketing hash runs for nearly every flag of every
 * request and Node's one-shot digest costs more in crossing into C++ and building a hex string
 * than the hashing itself; test/evaluation/hash.test.ts and test/sdk/bucketing-hash.test.ts check it against node:crypto.
 */

const words = new Int32Array(80);
const state = new Int32Array(5);
let bytes = new Uint8Array(256);

function ensureCapacity(size: number): void {
  if (size <= bytes.length) return;
  const grown = new Uint8Array(Math.max(size, bytes.length * 2));
  grown.set(bytes);
  bytes = grown;
}

/** Appends `text` as UTF-8 at `offset` (a lone surrogate becomes U+FFFD, as Node encodes it); returns the new end. */
function writeUtf8(text: string, offset: number): number {
  ensureCapacity(offset + text.length * 3 + 72);
  let n = offset;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      bytes[n++] = c;
    } else if (c < 0x800) {
      bytes[n++] = 0xc0 | (c >> 6);
      bytes[n++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      const point = 0x10000 + ((c - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00);
      bytes[n++] = 0xf0 | (point >> 18);
      bytes[n++] = 0x80 | ((point >> 12) & 0x3f);
      bytes[n++] = 0x80 | ((point >> 6) & 0x3f);
      bytes[n++] = 0x80 | (point & 0x3f);
    } else {
      if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
      bytes[n++] = 0xe0 | (c >> 12);
      bytes[n++] = 0x80 | ((c >> 6) & 0x3f);
      bytes[n++] = 0x80 | (c & 0x3f);
    }
  }
  return n;
}

const IV0 = 0x67452301;
const IV1 = 0xefcdab89 | 0;
const IV2 = 0x98badcfe | 0;
const IV3 = 0x10325476;
const IV4 = 0xc3d2e1f0 | 0;
/** a..e after `runRounds`, before they are added to the block's starting state. */
const after = new Int32Array(5);

/**
 * Expands `words[0..15]` into the message schedule and runs the rounds from `start` (rounds before
 * it already applied: `from` holds a..e after them), leaving a..e in `after`.
 */
function runRounds(start: number, from: Int32Array): void {
  const w = words;
  let a = from[0];
  let b = from[1];
  let c = from[2];
  let d = from[3];
  let e = from[4];
  for (let t = 16; t < 80; t++) {
    const x = w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16];
    w[t] = (x << 1) | (x >>> 31);
  }
  let t = start;
  let next: number;
  for (; t < 20; t++) {
    next = (((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + e + 0x5a827999 + w[t]) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = next;
  }
  for (; t < 40; t++) {
    next = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0x6ed9eba1 + w[t]) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = next;
  }
  for (; t < 60; t++) {
    next = (((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + e + 0x8f1bbcdc + w[t]) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = next;
  }
  for (; t < 80; t++) {
    next = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0xca62c1d6 + w[t]) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = next;
  }
  after[0] = a;
  after[1] = b;
  after[2] = c;
  after[3] = d;
  after[4] = e;
}

/** Reads 16 big-endian words of `bytes` from `offset`. */
function loadWords(source: Uint8Array, offset: number, target: Int32Array): void {
  for (let t = 0; t < 16; t++) {
    const o = offset + t * 4;
    target[t] = (source[o] << 24) | (source[o + 1] << 16) | (source[o + 2] << 8) | source[o + 3];
  }
}

function compressBlock(offset: number): void {
  loadWords(bytes, offset, words);
  runRounds(0, state);
  for (let i = 0; i < 5; i++) state[i] = (state[i] + after[i]) | 0;
}

/**
 * The first 60 bits (15 hex digits) of SHA-1 of the concatenated texts, as a number rounded once
 * (the 32 high bits times 2^28 are exact, so the one addition does the only rounding, as reading
 * the hex digits through BigInt does).
 */
export function sha1Leading60(first: string, second = '', third = '', fourth = ''): number {
  let length = writeUtf8(first, 0);
  length = writeUtf8(second, length);
  length = writeUtf8(third, length);
  length = writeUtf8(fourth, length);
  return digestLeading60(length);
}

/** The same over bytes already encoded (a flag's key, a person's identifier: hashed many times each). */
export function sha1Leading60OfBytes(first: Uint8Array, second: Uint8Array, third: Uint8Array): number {
  const length = first.length + second.length + third.length;
  ensureCapacity(length + 72);
  const target = bytes;
  let n = 0;
  for (let i = 0; i < first.length; i++) target[n++] = first[i];
  for (let i = 0; i < second.length; i++) target[n++] = second[i];
  for (let i = 0; i < third.length; i++) target[n++] = third[i];
  return digestLeading60(length);
}

/** Pads the message of `length` bytes in the buffer and hashes it. */
function digestLeading60(length: number): number {
  const padded = (((length + 8) >> 6) + 1) * 64;
  ensureCapacity(padded);
  const target = bytes;
  target[length] = 0x80;
  for (let i = length + 1; i < padded - 5; i++) target[i] = 0;
  const bits = length * 8;
  target[padded - 5] = Math.floor(bits / 0x100000000) & 0xff;
  target[padded - 4] = bits >>> 24;
  target[padded - 3] = (bits >>> 16) & 0xff;
  target[padded - 2] = (bits >>> 8) & 0xff;
  target[padded - 1] = bits & 0xff;
  state[0] = IV0;
  state[1] = IV1;
  state[2] = IV2;
  state[3] = IV3;
  state[4] = IV4;
  for (let offset = 0; offset < padded; offset += 64) compressBlock(offset);
  return (state[0] >>> 0) * 0x10000000 + (state[1] >>> 4);
}

/** UTF-8, as the hash reads texts. */
export function utf8(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf8'));
}

/**
 * A text that starts many hashed messages (a flag's `${key}.`), read once: its whole words and the
 * state after the rounds that read only them, so a one-block message starting with it skips those
 * rounds and the byte copying.
 */
export interface Sha1Prefix {
  readonly bytes: Uint8Array;
  /** The whole big-endian words (empty when the text alone fills a block's 14 message words). */
  readonly words: Int32Array;
  /** The bytes after the whole words, high-aligned in one word (0 when none). */
  readonly tail: number;
  /** a..e after the first `words.length` rounds. */
  readonly state: Int32Array;
}

/** A text that ends many hashed messages (a person's identifier and salt), with its words at each byte alignment once asked. */
export interface Sha1Suffix {
  readonly bytes: Uint8Array;
  /** By the prefix's length mod 4: that many zero bytes, the text, 0x80, zeros (16 words). */
  readonly aligned: (Int32Array | undefined)[];
}

/** The longest message hashed in one block (the rest is 0x80 and the 8-byte length). */
const ONE_BLOCK = 55;

export function sha1Prefix(bytes: Uint8Array): Sha1Prefix {
  const whole = bytes.length <= ONE_BLOCK ? bytes.length >> 2 : 0;
  const block = new Uint8Array(64);
  block.set(bytes.subarray(0, Math.min(bytes.length, 64)));
  const all = new Int32Array(16);
  loadWords(block, 0, all);
  const prefixWords = all.slice(0, whole);
  const tail = whole * 4 < bytes.length && bytes.length <= ONE_BLOCK ? all[whole] : 0;
  let a = IV0;
  let b = IV1;
  let c = IV2;
  let d = IV3;
  let e = IV4;
  // At most 13 rounds, all of the first twenty (the `choose` function).
  for (let t = 0; t < whole; t++) {
    const next = (((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + e + 0x5a827999 + prefixWords[t]) | 0;
    e = d;
    d = c;
    c = (b << 30) | (b >>> 2);
    b = a;
    a = next;
  }
  return { bytes, words: prefixWords, tail, state: Int32Array.of(a, b, c, d, e) };
}

export function sha1Suffix(bytes: Uint8Array): Sha1Suffix {
  return { bytes, aligned: [undefined, undefined, undefined, undefined] };
}

function alignedWords(suffix: Sha1Suffix, shift: number): Int32Array {
  const found = suffix.aligned[shift];
  if (found !== undefined) return found;
  // Called only for one-block messages: shift + text + 0x80 fits in 56 bytes.
  const block = new Uint8Array(64);
  block.set(suffix.bytes, shift);
  block[shift + suffix.bytes.length] = 0x80;
  const aligned = new Int32Array(16);
  loadWords(block, 0, aligned);
  suffix.aligned[shift] = aligned;
  return aligned;
}

const NO_BYTES = new Uint8Array(0);

/** `sha1Leading60` of the prefix's text followed by the suffix's. */
export function sha1Leading60Joined(prefix: Sha1Prefix, suffix: Sha1Suffix): number {
  const prefixLength = prefix.bytes.length;
  const length = prefixLength + suffix.bytes.length;
  if (length > ONE_BLOCK) return sha1Leading60OfBytes(prefix.bytes, suffix.bytes, NO_BYTES);
  const w = words;
  const whole = prefix.words;
  const k = whole.length;
  for (let t = 0; t < k; t++) w[t] = whole[t];
  const rest = alignedWords(suffix, prefixLength & 3);
  w[k] = prefix.tail | rest[0];
  for (let t = k + 1, j = 1; t < 14; t++, j++) w[t] = rest[j];
  w[14] = 0;
  w[15] = length * 8;
  runRounds(k, prefix.state);
  return (((IV0 + after[0]) | 0) >>> 0) * 0x10000000 + (((IV1 + after[1]) | 0) >>> 4);
}
