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

function compressBlock(offset: number): void {
  const w = words;
  for (let t = 0; t < 16; t++) {
    const o = offset + t * 4;
    w[t] = (bytes[o] << 24) | (bytes[o + 1] << 16) | (bytes[o + 2] << 8) | bytes[o + 3];
  }
  for (let t = 16; t < 80; t++) {
    const x = w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16];
    w[t] = (x << 1) | (x >>> 31);
  }
  let a = state[0];
  let b = state[1];
  let c = state[2];
  let d = state[3];
  let e = state[4];
  let t = 0;
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
  state[0] = (state[0] + a) | 0;
  state[1] = (state[1] + b) | 0;
  state[2] = (state[2] + c) | 0;
  state[3] = (state[3] + d) | 0;
  state[4] = (state[4] + e) | 0;
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
  state[0] = 0x67452301;
  state[1] = 0xefcdab89;
  state[2] = 0x98badcfe;
  state[3] = 0x10325476;
  state[4] = 0xc3d2e1f0;
  for (let offset = 0; offset < padded; offset += 64) compressBlock(offset);
  return (state[0] >>> 0) * 0x10000000 + (state[1] >>> 4);
}

/** UTF-8, as the hash reads texts. */
export function utf8(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf8'));
}
