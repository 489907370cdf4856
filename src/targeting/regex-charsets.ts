/**
 * Sets of UTF-16 code units, as JavaScript's RegExp without the `u` flag sees text, written out
 * for the linear-time engine, which reads text as code points.
 *
 * So that both read a text alike, every surrogate code unit (U+D800–U+DFFF) of the text is moved
 * to a code point of its own in plane 15 (U+F0000–U+F07FF, private use) before matching
 * (`engineText`), and sets name those code points for surrogates. A pair such as an emoji is then
 * two characters for the engine, as it is for JavaScript, and classes never have to be negated
 * by the engine (`[^…]` is spelled out over the 65 536 code units), so an unpaired surrogate or a
 * character outside the BMP cannot fall between two readings.
 */

/** Inclusive ranges of code units, sorted, not overlapping, not adjacent. */
export type UnitSet = ReadonlyArray<readonly [number, number]>;

const MAX_UNIT = 0xffff;
const SURROGATE_FIRST = 0xd800;
const SURROGATE_LAST = 0xdfff;
const SURROGATE_PLANE = 0xf0000;

export function normalize(ranges: Iterable<readonly [number, number]>): UnitSet {
  const sorted = [...ranges].filter(([lo, hi]) => lo <= hi).sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [lo, hi] of sorted) {
    const last = merged[merged.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else merged.push([lo, hi]);
  }
  return merged;
}

export function union(...sets: UnitSet[]): UnitSet {
  return normalize(sets.flat());
}

export function complement(set: UnitSet): UnitSet {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of set) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_UNIT) out.push([next, MAX_UNIT]);
  return out;
}

export const single = (unit: number): UnitSet => [[unit, unit]];

export const DIGIT: UnitSet = [[0x30, 0x39]];
export const WORD: UnitSet = normalize([[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]]);
/** JavaScript's `\s`: white space and line terminators. */
export const SPACE: UnitSet = normalize([
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029],
  [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
]);
/** JavaScript's `.` without the `s` flag: anything but a line terminator. */
export const DOT: UnitSet = complement(normalize([[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]]));

/** The sets `\d \D \w \W \s \S` stand for. */
export function classEscapeSet(letter: string): UnitSet | null {
  switch (letter) {
    case 'd':
      return DIGIT;
    case 'D':
      return complement(DIGIT);
    case 'w':
      return WORD;
    case 'W':
      return complement(WORD);
    case 's':
      return SPACE;
    case 'S':
      return complement(SPACE);
    default:
      return null;
  }
}

/** The engine's code point for a code unit: surrogates move to plane 15. */
function enginePoint(unit: number): number {
  return unit >= SURROGATE_FIRST && unit <= SURROGATE_LAST ? SURROGATE_PLANE + (unit - SURROGATE_FIRST) : unit;
}

const hex = (point: number) => `\\x{${point.toString(16)}}`;
const PLAIN = /^[A-Za-z0-9]$/;

/** One code unit as an engine literal. */
export function literal(unit: number): string {
  const char = String.fromCharCode(unit);
  return PLAIN.test(char) ? char : hex(enginePoint(unit));
}

/** A set in the engine's syntax: a literal for one unit, a class otherwise (one that matches nothing when empty). */
export function writeSet(set: UnitSet): string {
  if (set.length === 1 && set[0][0] === set[0][1]) return literal(set[0][0]);
  const parts: string[] = [];
  const range = (lo: number, hi: number) => parts.push(lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`);
  for (const [lo, hi] of set) {
    // Split around the surrogates, which move elsewhere.
    if (lo < SURROGATE_FIRST) range(lo, Math.min(hi, SURROGATE_FIRST - 1));
    if (hi >= SURROGATE_FIRST && lo <= SURROGATE_LAST) range(enginePoint(Math.max(lo, SURROGATE_FIRST)), enginePoint(Math.min(hi, SURROGATE_LAST)));
    if (hi > SURROGATE_LAST) range(Math.max(lo, SURROGATE_LAST + 1), hi);
  }
  return parts.length === 0 ? '[^\\x{0}-\\x{10ffff}]' : `[${parts.join('')}]`;
}

const SURROGATE = /[\ud800-\udfff]/;
const SURROGATES = /[\ud800-\udfff]/g;

/** The text as the engine must read it: each surrogate code unit on a code point of its own. */
export function engineText(text: string): string {
  if (!SURROGATE.test(text)) return text;
  return text.replace(SURROGATES, (unit) => String.fromCodePoint(enginePoint(unit.charCodeAt(0))));
}
