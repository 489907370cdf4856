import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseDrfBoolean, parseQueryBoolean, withDrfBooleans } from '../../src/kernel/http/drf-boolean.ts';
import { assertValidation } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

describe('DRF boolean spellings', () => {
  test('true and false as DRF reads them, case as DRF has it', () => {
    for (const yes of ['true', 'True', 'TRUE', 't', 'T', 'yes', 'Yes', 'YES', 'y', 'Y', 'on', 'On', 'ON', '1', 1, true]) {
      assert.equal(parseDrfBoolean(yes), true, String(yes));
    }
    for (const no of ['false', 'False', 'FALSE', 'f', 'F', 'no', 'No', 'NO', 'n', 'N', 'off', 'Off', 'OFF', '0', 0, false]) {
      assert.equal(parseDrfBoolean(no), false, String(no));
    }
    for (const other of ['tRue', 'truthy', '', ' true', '2', 2, -1, null, undefined, [], {}, 'null']) {
      assert.equal(parseDrfBoolean(other), undefined, JSON.stringify(other));
    }
  });

  test('query parameters also take any case and surrounding blanks', () => {
    assert.equal(parseQueryBoolean(' tRuE '), true);
    assert.equal(parseQueryBoolean('OfF'), false);
    assert.equal(parseQueryBoolean('maybe'), undefined);
  });

  test('the schema copy changes booleans only, and leaves the route schema untouched', () => {
    const schema = {
      type: 'object',
      required: ['type'],
      properties: {
        type: { type: 'string', enum: ['boolean'] },
        default: { type: 'boolean' },
        flag: { anyOf: [{ type: 'boolean' }, { type: 'null' }] },
        list: { type: 'array', items: { type: 'boolean' } },
        either: { type: ['boolean', 'null'] },
      },
    };
    const before = JSON.stringify(schema);
    const copy = withDrfBooleans(schema) as any;
    assert.equal(JSON.stringify(schema), before);
    assert.deepEqual(copy.required, ['type']);
    assert.deepEqual(copy.properties.type, { type: 'string', enum: ['boolean'] });
    assert.deepEqual(copy.properties.default, { drfBoolean: true });
    assert.deepEqual(copy.properties.flag.anyOf[0], { drfBoolean: true });
    assert.deepEqual(copy.properties.list.items, { drfBoolean: true });
    assert.deepEqual(copy.properties.either, { anyOf: [{ drfBoolean: true }, { type: ['null'] }] });
  });
});

describe('string booleans through the API', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const flags = () => `/api/projects/${t.projectId}/feature_flags/`;

  test('flag bodies take "true", "False", "1", "off" … and store booleans', async () => {
    const created = await t.request({
      method: 'POST',
      url: flags(),
      payload: { key: 'string-bools', active: 'false', ensure_experience_continuity: 'True', _should_create_usage_dashboard: '0' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const flag = created.json();
    assert.equal(flag.active, false);
    assert.equal(flag.ensure_experience_continuity, true);
    assert.equal(flag._should_create_usage_dashboard, false);
    assert.equal(flag.usage_dashboard, null);

    const patched = await t.request({ method: 'PATCH', url: `${flags()}${flag.id}/`, payload: { active: 'on', ensure_experience_continuity: 0 } });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().active, true);
    assert.equal(patched.json().ensure_experience_continuity, false);
    const { rows } = await t.db.pool.query('SELECT active, ensure_experience_continuity FROM feature_flags WHERE id = $1', [flag.id]);
    assert.deepEqual(rows[0], { active: true, ensure_experience_continuity: false });
  });

  test('spellings DRF refuses are refused with its message, naming the field', async () => {
    for (const active of ['tRue', 'maybe', '', 2, [], {}]) {
      const response = await t.request({ method: 'POST', url: flags(), payload: { key: `refused-${Math.random().toString(36).slice(2)}`, active } });
      assertValidation(response, 'Must be a valid boolean.', 'active', 'invalid_input');
    }
    const none = await t.request({ method: 'POST', url: flags(), payload: { key: 'refused-null', active: null } });
    assertValidation(none, 'This field may not be null.', 'active', 'null');
    const { rows } = await t.db.pool.query("SELECT count(*)::int AS n FROM feature_flags WHERE key LIKE 'refused-%'");
    assert.equal(rows[0].n, 0);
  });

  test('a nullable boolean still takes null, and a string where a string is wanted stays a string', async () => {
    const created = await t.request({ method: 'POST', url: flags(), payload: { key: 'nullable-bool', name: 'true', ensure_experience_continuity: null } });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().name, 'true');
    assert.equal(created.json().ensure_experience_continuity, null);
  });

  test('the flag list reads active as DRF spells booleans; other values are a 400', async () => {
    const on = await t.request({ method: 'POST', url: flags(), payload: { key: 'list-on', active: true } });
    assert.equal(on.statusCode, 201);
    const off = await t.request({ method: 'POST', url: flags(), payload: { key: 'list-off', active: false } });
    assert.equal(off.statusCode, 201);
    for (const [query, expectActive] of [['1', true], ['yes', true], ['TRUE', true], ['0', false], ['False', false], ['off', false]] as const) {
      const response = await t.request({ method: 'GET', url: `${flags()}?active=${query}` });
      assert.equal(response.statusCode, 200, response.body);
      const results = response.json().results as { active: boolean }[];
      assert.ok(results.length > 0, query);
      assert.ok(results.every((flag) => flag.active === expectActive), query);
    }
    assertValidation(await t.request({ method: 'GET', url: `${flags()}?active=maybe` }), '"maybe" is not a valid choice.', 'active', 'invalid_choice');
  });

  test('surveys and event definitions take string booleans too', async () => {
    const survey = await t.request({
      method: 'POST',
      url: `/api/projects/${t.projectId}/surveys/`,
      payload: { name: 'bools', type: 'popover', questions: [{ type: 'open', question: 'Why?' }], archived: 'yes', enable_partial_responses: 'false' },
    });
    assert.equal(survey.statusCode, 201, survey.body);
    assert.equal(survey.json().archived, true);
    assert.equal(survey.json().enable_partial_responses, false);
    const archived = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/surveys/?archived=1` });
    assert.deepEqual(archived.json().results.map((s: { name: string }) => s.name), ['bools']);

    const definitions = `/api/projects/${t.projectId}/event_definitions/`;
    const created = await t.request({ method: 'POST', url: definitions, payload: { name: 'signed up', verified: 'Y', hidden: 'no' } });
    assert.equal(created.statusCode, 201, created.body);
    const id = /event_definitions\/([^/]+)\//.exec(String(created.headers.location))?.[1];
    const patched = await t.request({ method: 'PATCH', url: `${definitions}${id}/`, payload: { hidden: 'TRUE', verified: 'off' } });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().hidden, true);
    assert.equal(patched.json().verified, false);
    const shown = await t.request({ method: 'GET', url: `${definitions}?exclude_hidden=1` });
    assert.ok(!shown.json().results.some((d: { name: string }) => d.name === 'signed up'));
    assertValidation(await t.request({ method: 'PATCH', url: `${definitions}${id}/`, payload: { verified: 'sure' } }), 'Must be a valid boolean.', 'verified');
  });
});
