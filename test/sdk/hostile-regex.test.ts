// Stored regexes against hostile values, through every HTTP path that evaluates them. Before the
// linear-time engine, `^(a+)+$` against 32 × 'a' + '!' held the event loop for about 18 s (and the
// time doubles with each further 'a').
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_MATCHED_LENGTH } from '../../src/targeting/regex.ts';
import { and, cohortsUrl, filtersOf, person as cohortPerson } from '../cohorts/support.ts';
import { capture, createFlag, flagsUrl, identify, postFlags, startSdkApp, type Json, type SdkTestApp } from './support.ts';

let t: SdkTestApp;

const NESTED = '^(a+)+$';
const HOSTILE = `${'a'.repeat(40)}!`;
const LONG = 'a'.repeat(200_000);
/** Generous, for a loaded machine: these answer in milliseconds; a backtracking engine takes over an hour on HOSTILE. */
const DOES_NOT_HANG_MS = 10_000;

const regexCondition = (operator: string, value: string) => ({
  groups: [{ properties: [{ key: 'email', type: 'person', operator, value }], rollout_percentage: 100 }],
});

async function timed<T>(run: () => Promise<T>, what: string): Promise<T> {
  const started = performance.now();
  const value = await run();
  const ms = performance.now() - started;
  assert.ok(ms < DOES_NOT_HANG_MS, `${what} took ${Math.round(ms)} ms`);
  return value;
}

before(async () => {
  t = await startSdkApp();
  // Stored before the rules: a lookbehind, which the API now refuses, evaluates as failing both ways.
  await t.db.pool.query(
    `INSERT INTO feature_flags (project_id, key, filters) VALUES ($1, 'legacy-lookbehind', $2), ($1, 'legacy-not-lookbehind', $3)`,
    [t.projectId, JSON.stringify(regexCondition('regex', '(?<=x)a')), JSON.stringify(regexCondition('not_regex', '(?<=x)a'))],
  );
  await createFlag(t, { key: 'nested', filters: regexCondition('regex', NESTED) });
  await createFlag(t, { key: 'not-nested', filters: regexCondition('not_regex', NESTED) });
  await createFlag(t, { key: 'greedy', filters: regexCondition('regex', '.*@example\\.com') });
  await createFlag(t, { key: 'not-greedy', filters: regexCondition('not_regex', '.*@example\\.com') });
  // Planted once through ingestion: every later evaluation of this person reads it.
  await capture(t, [identify('planted', { email: HOSTILE }), identify('plain', { email: `${'a'.repeat(32)}` })]);
  await t.listen();
});
after(() => t.close());

async function flagValues(body: Json, query = 'v=2', path = '/flags/'): Promise<Json> {
  const response = await timed(() => postFlags(t, body, query, path), `${path}?${query}`);
  assert.equal(response.statusCode, 200, response.body.slice(0, 300));
  return response.json();
}

const enabled = (answer: Json, key: string) => answer.flags[key].enabled;

describe('hostile values against stored regexes', () => {
  test('POST /flags?v=2: 40 × a + ! answers at once, with the right values', async () => {
    const answer = await flagValues({ distinct_id: 'someone', person_properties: { email: HOSTILE } });
    assert.equal(enabled(answer, 'nested'), false);
    assert.equal(enabled(answer, 'not-nested'), true);
    const matching = await flagValues({ distinct_id: 'someone', person_properties: { email: 'a'.repeat(32) } });
    assert.equal(enabled(matching, 'nested'), true);
    assert.equal(enabled(matching, 'not-nested'), false);
  });

  test('a 200 000-character value is longer than the cap: regex and not_regex both fail, at once', async () => {
    assert.ok(LONG.length > MAX_MATCHED_LENGTH);
    const answer = await flagValues({ distinct_id: 'someone', person_properties: { email: LONG } });
    for (const key of ['nested', 'not-nested', 'greedy', 'not-greedy']) assert.equal(enabled(answer, key), false, key);
    const short = await flagValues({ distinct_id: 'someone', person_properties: { email: `${'a'.repeat(MAX_MATCHED_LENGTH - 12)}@example.com` } });
    assert.equal(enabled(short, 'greedy'), true);
    assert.equal(enabled(short, 'not-greedy'), false);
  });

  test('a value planted through /batch/ $set is read by later evaluations, which answer at once', async () => {
    const answer = await flagValues({ distinct_id: 'planted' });
    assert.equal(enabled(answer, 'nested'), false);
    assert.equal(enabled(answer, 'not-nested'), true);
    assert.equal(enabled(await flagValues({ distinct_id: 'plain' }), 'nested'), true);
  });

  test('/decide answers at once', async () => {
    const answer = await flagValues({ distinct_id: 'someone', person_properties: { email: HOSTILE } }, 'v=3', '/decide/');
    assert.equal(answer.featureFlags.nested, false);
    assert.equal(answer.featureFlags['not-nested'], true);
  });

  test('OFREP answers at once', async () => {
    const response = await timed(
      () =>
        fetch(`${t.url}/ofrep/v1/evaluate/flags/not-nested`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${t.token}` },
          body: JSON.stringify({ context: { targetingKey: 'someone', email: HOSTILE } }),
        }),
      'OFREP',
    );
    assert.equal(response.status, 200);
    assert.equal((await response.json()).value, true);
  });

  test('evaluation_reasons for the planted person answers at once', async () => {
    const response = await timed(
      () => t.request({ method: 'GET', url: `${flagsUrl(t.projectId)}evaluation_reasons/?distinct_id=planted` }),
      'evaluation_reasons',
    );
    assert.equal(response.statusCode, 200, response.body);
    const reasons = response.json();
    assert.equal(reasons.nested.value, false);
    assert.equal(reasons['not-nested'].value, true);
  });

  test('user_blast_radius counts over the stored persons at once', async () => {
    const response = await timed(
      () =>
        t.request({
          method: 'POST',
          url: `${flagsUrl(t.projectId)}user_blast_radius/`,
          payload: { condition: { properties: [{ key: 'email', type: 'person', operator: 'regex', value: NESTED }] } },
        }),
      'user_blast_radius',
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { users_affected: 1, total_users: 2 });
  });

  test('a cohort on the pattern counts its persons at once', async () => {
    const response = await timed(
      () => t.request({ method: 'POST', url: cohortsUrl(t.projectId), payload: { name: 'nested', filters: filtersOf(and(cohortPerson('email', NESTED, 'regex'))) } }),
      'cohort count',
    );
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.json().count, 1);
  });

  test('a stored pattern the rules now refuse fails both ways', async () => {
    const answer = await flagValues({ distinct_id: 'someone', person_properties: { email: 'xa' } });
    assert.equal(enabled(answer, 'legacy-lookbehind'), false);
    assert.equal(enabled(answer, 'legacy-not-lookbehind'), false);
  });
});

describe('patterns refused at write time', () => {
  test('flags: 400 on filters, naming the operator, the pattern and the reason; nothing stored', async () => {
    const response = await t.request({ method: 'POST', url: flagsUrl(t.projectId), payload: { key: 'lookahead', filters: regexCondition('regex', 'a(?=b)') } });
    assert.equal(response.statusCode, 400, response.body);
    assert.deepEqual(response.json(), {
      type: 'validation_error',
      code: 'invalid_value',
      detail: 'Invalid regular expression for operator regex: a(?=b) (lookahead and lookbehind ((?=…), (?!…), (?<=…), (?<!…)) are not supported)',
      attr: 'filters',
    });
    const { rows } = await t.db.pool.query("SELECT 1 FROM feature_flags WHERE key = 'lookahead'");
    assert.equal(rows.length, 0);
  });

  test('cohorts: 400 on filters for a backreference', async () => {
    const response = await t.request({
      method: 'POST',
      url: cohortsUrl(t.projectId),
      payload: { name: 'backref', filters: filtersOf(and(cohortPerson('email', '(a)\\1', 'not_regex'))) },
    });
    assert.equal(response.statusCode, 400, response.body);
    const body = response.json();
    assert.equal(body.attr, 'filters');
    assert.equal(body.code, 'invalid_value');
    assert.match(body.detail, /^Invalid regular expression for operator not_regex: \(a\)\\1 \(backreferences/);
  });
});
