import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { matchProperty } from '../../src/evaluation/index.ts';

const NOW = new Date('2024-03-31T12:00:00Z');

/** Does `{key: 'p', operator, value}` hold for `p = actual` (or for no `p` when actual is ABSENT)? */
const ABSENT = Symbol('absent');
function holds(operator: string | null | undefined, value: unknown, actual: unknown, now = NOW): boolean {
  const bag: Record<string, unknown> = actual === ABSENT ? { other: 1 } : { p: actual };
  return matchProperty({ key: 'p', operator, value, type: 'person' }, bag, now);
}
type Case = [value: unknown, actual: unknown, expected: boolean];
function table(operator: string, cases: Case[]) {
  for (const [value, actual, expected] of cases) {
    const label = `${operator} ${JSON.stringify(value)} vs ${actual === ABSENT ? '(absent)' : JSON.stringify(actual)}`;
    assert.equal(holds(operator, value, actual), expected, label);
  }
}

describe('operators', () => {
  test('exact: case-insensitive text, lists are "any of", missing operator means exact', () => {
    table('exact', [
      ['value', 'value', true],
      ['value', 'VALUE', true],
      ['value', 'value2', false],
      ['value', '', false],
      [['a', 'b', 'c'], 'B', true],
      [['a', 'b', 'c'], 'd', false],
      ['5', 5, true],
      [5, '5', true],
      [['1', 2], 2, true],
      ['1.5', 1.5, true],
      ['null', null, true],
      ['value', null, false],
      ['{"a":1,"b":[1,"x"]}', { b: [1, 'x'], a: 1 }, true], // objects compare as sorted compact JSON
      ['value', ABSENT, false],
    ]);
    assert.equal(holds(undefined, 'Value', 'value'), true);
    assert.equal(holds(null, 'Value', 'value'), true);
  });

  test('exact: boolean-like values compare truth values', () => {
    table('exact', [
      [true, 'true', true],
      ['true', true, true],
      ['True', 'TRUE', true],
      [false, 'false', true],
      ['false', false, true],
      [true, false, false],
      ['true', 'yes', false],
      ['false', 'yes', true], // anything that is not true-like counts as false
      ['false', 0, true],
      ['true', 1, false],
      ['false', null, true],
      [[true, 'true'], true, true],
      [['true', 'false'], true, false], // a list of boolean-likes is true only if all are
    ]);
  });

  test('is_not: the negation of exact; a missing property matches', () => {
    table('is_not', [
      ['value', 'value', false],
      ['value', 'other', true],
      [['a', 'b'], 'A', false],
      [['a', 'b'], 'c', true],
      ['true', true, false],
      ['value', null, true],
      ['value', ABSENT, true],
    ]);
  });

  test('is_set / is_not_set: a present key counts even when null', () => {
    table('is_set', [
      ['is_set', 'x', true],
      ['is_set', null, true],
      ['is_set', '', true],
      ['is_set', ABSENT, false],
    ]);
    table('is_not_set', [
      ['is_not_set', 'x', false],
      ['is_not_set', null, false],
      ['is_not_set', ABSENT, true],
    ]);
    assert.equal(matchProperty({ key: 'p', operator: 'is_set', value: 'is_set' }, { p: undefined }, NOW), false);
  });

  test('icontains / not_icontains: ASCII case folding, JavaScript text of the value', () => {
    table('icontains', [
      ['ALUE', 'value', true],
      ['xyz', 'value', false],
      ['', 'value', true],
      ['12', 3124, true],
      ['null', null, true],
      ['a,b', ['a', 'b'], true],
      ['ä', 'Ä', false], // only A–Z fold
      ['x', ABSENT, false],
    ]);
    table('not_icontains', [
      ['ALUE', 'value', false],
      ['xyz', 'value', true],
      ['nul', null, false],
      ['x', ABSENT, true],
    ]);
  });

  test('icontains_multi / not_icontains_multi: any of several substrings', () => {
    table('icontains_multi', [
      [['foo', 'BAR'], 'xxbarxx', true],
      [['foo', 'bar'], 'baz', false],
      ['az', 'BAZ', true],
      [['a'], null, false],
      [['a'], ABSENT, false],
    ]);
    table('not_icontains_multi', [
      [['foo', 'bar'], 'xxbarxx', false],
      [['foo', 'bar'], 'baz', true],
      [['a'], null, false],
      [['a'], ABSENT, true],
    ]);
  });

  test('regex / not_regex: case-sensitive search; an invalid pattern fails both', () => {
    table('regex', [
      ['^val', 'value', true],
      ['^VAL', 'value', false],
      ['(?i)val', 'value', false], // not JavaScript syntax: invalid, no match
      ['alu', 'value', true],
      ['^\\d+$', 123, true],
      ['[', 'value', false],
      ['^null$', null, true],
      ['', 'anything', true],
      ['x', ABSENT, false],
    ]);
    table('not_regex', [
      ['^val', 'value', false],
      ['^VAL', 'value', true],
      ['[', 'value', false],
      ['x', ABSENT, true],
    ]);
  });

  test('gt / gte / lt / lte: numeric when both sides are finite numbers, else text', () => {
    table('gt', [
      ['5', 10, true],
      ['5', '10', true], // both parse: numeric (a text comparison would say "10" < "5")
      ['10', '9', false],
      ['5', 5, false],
      ['5', '5.0', false],
      ['1.5', '1.50001', true],
      ['5', '6abc', true], // parseFloat reads the leading number, as posthog-node does
      ['abc', 'abd', true], // text
      ['5', 'abc', true], // "abc" > "5" as text
      ['5', null, false],
      ['5', ABSENT, false],
      ['5', true, true], // "true" > "5" as text
    ]);
    table('gte', [
      ['5', 5, true],
      ['5', '4.99', false],
    ]);
    table('lt', [
      ['5', 4, true],
      ['5', '-1e3', true],
      ['5', 'Infinity', false], // not finite: text, "Infinity" > "5"
    ]);
    table('lte', [
      ['5', 5, true],
      ['b', 'a', true],
    ]);
  });

  test('dates: relative condition values', () => {
    // now 2024-03-31T12:00Z
    table('is_date_before', [
      ['-1d', '2024-03-30T11:59:59Z', true],
      ['-1d', '2024-03-30T12:00:01Z', false],
      ['1d', '2024-03-30T11:00:00Z', true], // the minus sign is optional
      ['-2h', '2024-03-31T09:59:00Z', true],
      ['-1w', '2024-03-24T11:00:00Z', true],
      ['-1w', '2024-03-24T13:00:00Z', false],
      ['-1m', '2024-02-29T11:00:00Z', true], // 31 March − 1 month = 29 February (clamped)
      ['-1m', '2024-02-29T13:00:00Z', false],
      ['-2m', '2024-01-29T11:00:00Z', true], // clamped at February first: 29 January
      ['-2m', '2024-01-29T13:00:00Z', false],
      ['-1y', '2023-03-31T11:00:00Z', true],
      ['-10000d', '1900-01-01', false], // 10000 and more is not relative (and not a date)
    ]);
    assert.equal(holds('is_date_before', '-1y', '2023-02-28T11:00:00Z', new Date('2024-02-29T12:00:00Z')), true);
    assert.equal(holds('is_date_before', '-1y', '2023-02-28T13:00:00Z', new Date('2024-02-29T12:00:00Z')), false);
    table('is_date_after', [
      ['-30d', '2024-03-15', true],
      ['-30d', '2024-02-15', false],
    ]);
  });

  test('dates: absolute values and the forms of the property value', () => {
    table('is_date_before', [
      ['2024-01-01', '2023-12-31T23:59:59Z', true],
      ['2024-01-01', '2024-01-01T00:00:00Z', false],
      ['2024-01-01T10:00:00+02:00', '2024-01-01T07:59:00Z', true],
      ['2024-01-01T10:00:00+02:00', '2024-01-01T08:01:00Z', false],
      ['2024-01-01', '2023-12-31 10:00:00', true], // no offset: UTC
      ['2024-01-01', 'Sun, 31 Dec 2023 10:00:00 GMT', true], // what JavaScript's Date reads
      ['2024-01-01', 1_600_000_000_000, true], // numbers: epoch milliseconds (posthog-node)
      ['2024-01-01', 1_800_000_000_000, false],
      ['2024-01-01', '1600000000', true], // numeric strings JavaScript cannot read: unix seconds
      ['2024-01-01', '1800000000', false],
      ['2024-01-01', 'not a date', false],
      ['2024-01-01', true, false],
      ['2024-01-01', null, false],
      ['2024-01-01', ABSENT, false],
      ['not a date', '2023-01-01', false],
      [true, '2023-01-01', false],
    ]);
    assert.equal(
      matchProperty({ key: 'p', operator: 'is_date_after', value: '2024-01-01' }, { p: new Date('2024-06-01') }, NOW),
      true,
    );
    table('is_date_exact', [
      ['2024-01-01', '2024-01-01T00:00:00Z', true],
      ['2024-01-01', '2024-01-01T00:00:01Z', false],
      ['2024-01-01T02:00:00+02:00', '2024-01-01', true],
    ]);
  });

  test('semver comparisons', () => {
    table('semver_eq', [
      ['1.2.3', '1.2.3', true],
      ['1.2.3', 'v1.2.3', true],
      ['1.2', '1.2.0', true],
      ['1', '1.0.0', true],
      ['1.2.3', '1.2.3-beta.1', true], // pre-release and build are ignored
      ['1.2.3', '1.2.3+build', true],
      ['1.2.3', ' 1.2.3.9 ', true], // parts past the third ignored
      ['1.2.3', '1.2.4', false],
      ['3.8.0', '3.08', true], // leading zeros accepted (the flags service)
      ['1.2.3', 'banana', false],
      ['1.2.3', '.1.2', false],
      ['1.2.3', null, false],
      ['1.2.3', ABSENT, false],
      ['not-a-version', '1.2.3', false],
    ]);
    table('semver_neq', [
      ['1.2.3', '1.2.4', true],
      ['1.2.3', '1.2.3', false],
      ['1.2.3', 'banana', false],
    ]);
    table('semver_gt', [
      ['1.2.3', '1.10.0', true], // numeric parts, not text
      ['1.2.3', '1.2.3', false],
    ]);
    table('semver_gte', [['1.2.3', '1.2.3', true]]);
    table('semver_lt', [['1.10.0', '1.9.9', true]]);
    table('semver_lte', [['1.2.3', '1.2.3', true], ['1.2.3', '2.0.0', false]]);
  });

  test('semver tilde, caret and wildcard ranges', () => {
    table('semver_tilde', [
      ['1.2.3', '1.2.3', true],
      ['1.2.3', '1.2.99', true],
      ['1.2.3', '1.3.0', false],
      ['1.2.3', '1.2.2', false],
      ['1.2', '1.2.0', true],
      ['0.0.1', '0.0.9', true],
    ]);
    table('semver_caret', [
      ['1.2.3', '1.9.0', true],
      ['1.2.3', '2.0.0', false],
      ['1.2.3', '1.2.2', false],
      ['0.2.3', '0.2.9', true],
      ['0.2.3', '0.3.0', false],
      ['0.0.3', '0.0.3', true],
      ['0.0.3', '0.0.4', false],
      ['0.0.0', '0.0.0', true],
      ['0.0.0', '0.0.1', false],
    ]);
    table('semver_wildcard', [
      ['1.*', '1.0.0', true],
      ['1.*', '1.99.3', true],
      ['1.*', '2.0.0', false],
      ['1.2.*', '1.2.7', true],
      ['1.2.*', '1.3.0', false],
      ['1.2.*', '1.1.9', false],
      ['1', '1.5.0', true],
      ['1.2.3', '1.2.0', true], // a third part is ignored: 1.2.*
      ['1.*.*', '1.4.0', true],
      ['1.x', '1.4.0', true],
      ['v2.*', '2.1.0', true],
      ['*', '7.0.0', true],
      ['*', 'banana', false],
      ['a.*', '1.0.0', false],
    ]);
  });

  test('unknown operators and cohort operators on a plain property match nothing', () => {
    assert.equal(holds('starts_with', 'v', 'value'), false);
    assert.equal(holds('in', 'value', 'value'), false);
    assert.equal(holds('bogus', 'value', ABSENT), false);
  });

  test('a condition without a value fails (except is_set / is_not_set)', () => {
    assert.equal(matchProperty({ key: 'p', operator: 'exact' }, { p: 'x' }, NOW), false);
    assert.equal(matchProperty({ key: 'p', operator: 'is_not' }, { p: 'x' }, NOW), false);
  });
});
