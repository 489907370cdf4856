/**
 * The engine's hand-written SHA-1 (src/evaluation/sha1.ts, written for /flags' speed) against
 * node:crypto, on the inputs that are easy to get wrong: multi-byte and lone-surrogate text,
 * lengths around the 55/56/64-byte block edges, several blocks; a prefix read once (its rounds
 * skipped) joined to a suffix at every byte alignment.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hash } from 'node:crypto';
import { flagHash, holdoutHash } from '../../src/evaluation/index.ts';
import { hashPrefixOf, inRollout, pickVariant } from '../../src/evaluation/hash.ts';
import { sha1Leading60Joined, sha1Prefix, sha1Suffix, utf8 } from '../../src/evaluation/sha1.ts';

const LONG_SCALE = 1152921504606846975;
const expected = (text: string) => Number(BigInt(`0x${hash('sha1', text, 'hex').slice(0, 15)}`)) / LONG_SCALE;

const PIECES = ['', 'é', '😀', '\ud800', '\udc00x', 'a\ud83dz', '中文', 'x'.repeat(40), 'y'.repeat(53), 'z'.repeat(64), 'w'.repeat(119), 'q'.repeat(300)];

describe('bucketing hash (hand-written SHA-1)', () => {
  test('equals node:crypto for awkward texts and every length up to three blocks', () => {
    for (let i = 0; i < 4000; i++) {
      const key = `flag-${i % 97}${PIECES[i % PIECES.length]}`;
      const id = `user-${i}${PIECES[(i * 7) % PIECES.length]}`;
      const salt = i % 2 === 0 ? 'variant' : '';
      assert.equal(flagHash(key, id, salt), expected(`${key}.${id}${salt}`), JSON.stringify([key, id, salt]));
      assert.equal(holdoutHash(id), expected(`holdout-${id}`), id);
    }
    for (let length = 0; length <= 200; length++) {
      const id = 'i'.repeat(length);
      assert.equal(flagHash('k', id), expected(`k.${id}`), `length ${length + 2}`);
    }
  });

  test('a flag given as its encoded prefix (as the engine hashes prepared flags) decides the same', () => {
    const variants = [
      { key: 'a', rollout_percentage: 33 },
      { key: 'b', rollout_percentage: 33 },
      { key: 'c', rollout_percentage: 34 },
    ];
    for (let i = 0; i < 3000; i++) {
      const key = `flag-${i % 31}${PIECES[i % PIECES.length]}`;
      const prefix = hashPrefixOf(key);
      // Alternate identifiers so the kept identifier bytes change and repeat.
      const id = `user-${i >> 1}${PIECES[(i * 5) % PIECES.length]}`;
      const percentage = (i * 7) % 101;
      assert.equal(inRollout(prefix, id, percentage), flagHash(key, id) <= percentage / 100, `${key} ${id} ${percentage}`);
      assert.equal(pickVariant(prefix, id, variants), pickVariant(key, id, variants), `${key} ${id}`);
    }
  });

  test('a prefix read once joined to a suffix hashes as the joined text, at every length and alignment', () => {
    const leading60 = (text: string) => Number(BigInt(`0x${hash('sha1', text, 'hex').slice(0, 15)}`));
    for (let prefixLength = 0; prefixLength <= 70; prefixLength++) {
      const text = 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(2).slice(0, prefixLength);
      const prefix = sha1Prefix(utf8(text));
      for (const suffixText of ['', 'u', 'user-1', 'user-123variant', 'é😀', 's'.repeat(40), 't'.repeat(Math.max(0, 56 - prefixLength)), 't'.repeat(Math.max(0, 55 - prefixLength)), 'x'.repeat(80)]) {
        // The same suffix object twice: its aligned words are kept after the first use.
        const suffix = sha1Suffix(utf8(suffixText));
        for (let round = 0; round < 2; round++) {
          assert.equal(sha1Leading60Joined(prefix, suffix), leading60(`${text}${suffixText}`), JSON.stringify([text, suffixText]));
        }
      }
    }
  });
});
