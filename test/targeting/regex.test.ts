import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_MATCHED_LENGTH, MAX_PATTERN_LENGTH, matchRegex, regexProblem } from '../../src/targeting/regex.ts';
import { DOT, SPACE, type UnitSet } from '../../src/targeting/regex-charsets.ts';
import { Random } from '../evaluation/support/random.ts';

/** Wall time of `run`, in ms. */
function timed<T>(run: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = run();
  return { value, ms: performance.now() - started };
}

function contains(set: UnitSet, unit: number): boolean {
  return set.some(([lo, hi]) => unit >= lo && unit <= hi);
}

// Pieces of patterns JavaScript and the linear-time engine must read alike.
const ATOMS = [
  'a', 'b', 'ab', '.', '\\d', '\\D', '\\w', '\\W', '\\s', '\\S', '[ab]', '[^ab]', '[a-c]', '[^\\s]', '[\\d-]', '[\\w-a]', '[.]', '[]', '[^]',
  '\\n', '\\r', '\\.', '\\$', '\\u00e9', '\\xe9', '\\u', '\\x', 'é', '😀', '\\ud83d', '[\\ud800-\\udbff]', '[^\\ud83d]', '\\t', '\\v', '\\0', '\\cJ',
  '{', '}', ']', 'a{,2}', '\\-', '[\\b]', '-', '@', ' ',
];
const QUANTIFIERS = ['', '', '', '*', '+', '?', '{2}', '{1,2}', '{0,}', '*?', '+?', '??'];
const TEXT_UNITS = ['a', 'b', 'c', 'é', '1', '_', '-', ' ', '\n', '\r', '\u2028', '\u00a0', '\ufeff', '\v', '\t', '\b', '\0', '😀', '\ud83d', '\ude00', '.', '{', '@', 'u', 'x', '$'];

function randomPattern(random: Random, depth = 0): string {
  const terms: string[] = [];
  const count = random.int(1, 4);
  for (let i = 0; i < count; i += 1) {
    const roll = random.next();
    if (roll < 0.08) terms.push(random.pick(['^', '$', '\\b', '\\B']));
    else if (roll < 0.2 && depth < 2) terms.push(`${random.pick(['(', '(?:', '(?<g>'])}${randomPattern(random, depth + 1)})${random.pick(QUANTIFIERS)}`);
    else terms.push(`${random.pick(ATOMS)}${random.pick(QUANTIFIERS)}`);
  }
  const alternative = terms.join('');
  return random.chance(0.15) ? `${alternative}|${randomPattern(random, depth + 1)}` : alternative;
}

function randomText(random: Random): string {
  let text = '';
  const length = random.int(0, 10);
  for (let i = 0; i < length; i += 1) text += random.pick(TEXT_UNITS);
  return text;
}

describe('stored regex patterns', () => {
  test('read as JavaScript reads them: thousands of generated patterns and texts agree with RegExp', () => {
    const random = new Random(20261121);
    let compared = 0;
    for (let i = 0; i < 1500; i += 1) {
      const pattern = randomPattern(random);
      let js: RegExp;
      try {
        js = new RegExp(pattern);
      } catch {
        assert.notEqual(regexProblem(pattern), null, `JavaScript refuses ${pattern}, so must we`);
        continue;
      }
      const problem = regexProblem(pattern);
      assert.equal(problem, null, `refused ${JSON.stringify(pattern)}: ${problem}`);
      for (let j = 0; j < 12; j += 1) {
        const text = randomText(random);
        assert.equal(matchRegex(pattern, text), js.test(text), `${JSON.stringify(pattern)} on ${JSON.stringify(text)}`);
        compared += 1;
      }
    }
    assert.ok(compared > 10_000, `only ${compared} comparisons`);
  });

  test('., \\s and their complements are exactly JavaScript\'s sets, every code unit checked', () => {
    for (let unit = 0; unit <= 0xffff; unit += 1) {
      const char = String.fromCharCode(unit);
      assert.equal(contains(SPACE, unit), /\s/.test(char), `\\s on U+${unit.toString(16)}`);
      assert.equal(contains(DOT, unit), /./.test(char), `. on U+${unit.toString(16)}`);
    }
    assert.equal(matchRegex('^.$', '\r'), false);
    assert.equal(matchRegex('^\\s$', '\u3000'), true);
    assert.equal(matchRegex('^\\S$', '\ufeff'), false);
  });

  test('text outside the BMP is two code units, as in JavaScript without the u flag', () => {
    for (const [pattern, text] of [['^.$', '😀'], ['^..$', '😀'], ['^\\ud83d', '😀'], ['^[^a]{2}$', '😀'], ['😀+$', '😀\ude00'], ['^\\W\\W$', '\ud83d\ude00']]) {
      assert.equal(matchRegex(pattern, text), new RegExp(pattern).test(text), `${pattern} on ${text}`);
    }
    assert.equal(matchRegex('^.$', '\u{F0000}'), false, 'a real plane-15 character is still two units');
  });

  test('hostile patterns and texts finish at once, with the right answer', () => {
    const cases: Array<[string, string, boolean]> = [
      ['^(a+)+$', `${'a'.repeat(32)}!`, false],
      ['^(a+)+$', 'a'.repeat(4000), true],
      ['.*@example\\.com', 'a'.repeat(MAX_MATCHED_LENGTH), false],
      ['(x+x+)+y', 'x'.repeat(4000), false],
      ['^(a|aa)+$', `${'a'.repeat(4000)}b`, false],
      ['(.*a){12}', 'a'.repeat(20) + 'b'.repeat(2000), true],
    ];
    for (const [pattern, text, expected] of cases) {
      const { value, ms } = timed(() => matchRegex(pattern, text));
      assert.equal(value, expected, `${pattern} on ${text.length} characters`);
      assert.ok(ms < 1000, `${pattern} on ${text.length} characters took ${Math.round(ms)} ms`);
    }
  });

  test('a text longer than the cap is not searched: null, so the condition fails both ways', () => {
    const long = 'a'.repeat(MAX_MATCHED_LENGTH + 1);
    assert.equal(matchRegex('a', long), null);
    assert.equal(matchRegex('a', long.slice(1)), true);
    const { ms } = timed(() => matchRegex('.*@example\\.com', 'a'.repeat(200_000)));
    assert.ok(ms < 1000, `a 200 000-character text took ${Math.round(ms)} ms`);
  });

  test('features JavaScript and the other readers disagree on, or the engine cannot run, are refused with a reason', () => {
    const refused: Array<[string, RegExp]> = [
      ['(?=a)b', /lookahead and lookbehind/],
      ['(?<!a)b', /lookahead and lookbehind/],
      ['(a)\\1', /backreferences/],
      ['(?<x>a)\\k<x>', /named backreferences/],
      ['\\012', /octal/],
      ['\\pL', /\\p is not supported/],
      ['\\Afoo\\z', /\\A is not supported/],
      ['[[:alpha:]]', /unescaped \[/],
      ['[a&&b]', /set operation/],
      ['[+--]', /set operation/],
      ['\\c1', /\\c must be followed by a letter/],
      ['a{1001}', /repetition counts above 1000/],
      ['(a{100}){100}', /nested repetitions/],
      ['[a-z]{999}[a-z]{999}', /too large/],
      ['(?i)abc', /Invalid regular expression/],
      ['(', /Invalid regular expression/],
      ['a'.repeat(MAX_PATTERN_LENGTH + 1), /limited to 1000 characters/],
    ];
    for (const [pattern, reason] of refused) {
      const problem = regexProblem(pattern);
      assert.match(problem ?? '', reason, `${pattern.slice(0, 40)}: ${problem}`);
      assert.equal(matchRegex(pattern, 'abc'), null, `${pattern.slice(0, 40)} must never match`);
    }
    assert.equal(regexProblem('a'.repeat(MAX_PATTERN_LENGTH)), null);
  });

  test('what JavaScript reads literally stays literal', () => {
    const cases: Array<[string, string, boolean]> = [
      ['a{,2}', 'a{,2}', true],
      ['a{,2}', 'aa', false],
      ['\\u{2}', 'uu', true],
      ['x{', 'x{', true],
      [']', ']', true],
      ['[]a]', 'a]', false],
      ['[^]', '\n', true],
      ['\\é', 'é', true],
      ['', 'anything', true],
      ['a$', 'a\n', false],
    ];
    for (const [pattern, text, expected] of cases) {
      assert.equal(new RegExp(pattern).test(text), expected, `JavaScript: ${pattern} on ${text}`);
      assert.equal(matchRegex(pattern, text), expected, `${pattern} on ${text}`);
    }
  });
});
