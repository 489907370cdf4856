// GET /api/projects/:id/event_definitions/{typescript,python,golang}: access, which events, types,
// required vs optional, the fallback to observed properties, de-duplication and schema_hash.
// (Compiling the output with hostile names: codegen-compile.test.ts.)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addEvent, addEventWithSchema, addGroup, attach, generated, newProject, observe, type Language } from './codegen-support.ts';

const LANGUAGES: Language[] = ['typescript', 'python', 'golang'];
const VERSIONS: Record<Language, string> = { typescript: '1.1.0', python: '1.0.0', golang: '1.0.0' };

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

const url = (projectId: number | string, language: Language, slash = '/') => `/api/projects/${projectId}/event_definitions/${language}${slash}`;
const sha32 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

async function keyWith(scopes: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const response = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: scopes.join(' '), scopes, ...extra } });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().value;
}

/** The content without its generated-at line. */
const timeless = (content: string) => content.replace(/Generated at: .*/, '');

test('authentication, scope event_definition:read (write implies it), project access', async () => {
  const flagsOnly = await keyWith(['feature_flag:read']);
  const read = await keyWith(['event_definition:read']);
  const write = await keyWith(['event_definition:write']);
  const other = await newProject(t, 'Other');
  const scopedElsewhere = await keyWith(['event_definition:read'], { scoped_teams: [other] });
  for (const language of LANGUAGES) {
    const none = await t.request({ method: 'GET', url: url(1, language), key: null });
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().code, 'not_authenticated');
    const bad = await t.request({ method: 'GET', url: url(1, language), key: 'phx_not_a_key' });
    assert.equal(bad.statusCode, 401);
    const denied = await t.request({ method: 'GET', url: url(1, language), key: flagsOnly });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), {
      type: 'authentication_error',
      code: 'permission_denied',
      detail: "API key missing required scope 'event_definition:read'",
      attr: null,
    });
    assert.equal((await t.request({ method: 'GET', url: url(1, language), key: read })).statusCode, 200);
    assert.equal((await t.request({ method: 'GET', url: url(1, language, ''), key: write })).statusCode, 200);
    assert.equal((await t.request({ method: 'GET', url: url(1, language), key: scopedElsewhere })).statusCode, 403);
    assert.equal((await t.request({ method: 'GET', url: url('@current', language), key: scopedElsewhere })).statusCode, 200);
    assert.equal((await t.request({ method: 'GET', url: url(4242, language) })).statusCode, 404);
  }
});

test('documented in OpenAPI under event_definitions with the read scope', async () => {
  const doc = (await t.request({ method: 'GET', url: '/api/schema/', key: null })).json();
  for (const language of LANGUAGES) {
    const path = `/api/projects/{project_id}/event_definitions/${language}`;
    const operation = (doc.paths[path] ?? doc.paths[`${path}/`])?.get;
    assert.ok(operation, path);
    assert.deepEqual(operation.tags, ['event_definitions']);
    assert.equal(operation['x-required-scope'], 'event_definition:read');
  }
});

test('a project with no events: a complete file, event_count 0, the hash of no schemas', async () => {
  const project = await newProject(t, 'Empty');
  for (const language of LANGUAGES) {
    const body = await generated(t, project, language);
    assert.equal(body.event_count, 0);
    assert.equal(body.generator_version, VERSIONS[language]);
    assert.equal(body.schema_hash, sha32(`{"schemas":[],"version":"${VERSIONS[language]}"}`));
    assert.match(body.content, /GENERATED FILE - DO NOT EDIT|DO NOT EDIT\./);
  }
  const ts = (await generated(t, project, 'typescript')).content;
  assert.match(ts, /^interface EventSchemas \{\n\}$/m);
  assert.match(ts, /^export default posthog$/m);
  assert.match((await generated(t, project, 'python')).content, /^class PosthogTyped\(Posthog\):\n(.*\n)*    pass$/m);
  assert.match((await generated(t, project, 'golang')).content, /^package typed$/m);
});

test('custom events plus $pageview, $pageleave and $screen, in byte order; other $ events and projects are left out', async () => {
  const project = await newProject(t, 'Inclusion');
  const other = await newProject(t, 'Neighbour');
  for (const name of ['zeta', 'alpha', 'Beta', '_under', 'émoji', '$pageview', '$pageleave', '$screen', '$autocapture', '$identify', '$set', '$$heatmap']) {
    await addEvent(t.db.pool, project, name);
  }
  await addEvent(t.db.pool, other, 'neighbour event');
  const expected = ['$pageleave', '$pageview', '$screen', 'Beta', '_under', 'alpha', 'zeta', 'émoji'];
  for (const language of LANGUAGES) {
    const body = await generated(t, project, language);
    assert.equal(body.event_count, expected.length, language);
    for (const excluded of ['$autocapture', '$identify', '"$set"', '$$heatmap', 'neighbour']) {
      assert.ok(!body.content.includes(excluded), `${language}: ${excluded}`);
    }
  }
  const ts = (await generated(t, project, 'typescript')).content;
  const keys = [...ts.matchAll(/^ {4}("(?:[^"\\]|\\.)*"): /gm)].map((m) => JSON.parse(m[1]));
  assert.deepEqual(keys, expected);
  const py = (await generated(t, project, 'python')).content;
  const methods = [...py.matchAll(/^ {4}def (capture_\w+)\(/gm)].map((m) => m[1]);
  assert.deepEqual(methods, ['capture_pageleave', 'capture_pageview', 'capture_screen', 'capture_beta', 'capture_under', 'capture_alpha', 'capture_zeta', 'capture_emoji']);
  const go = (await generated(t, project, 'golang')).content;
  const functions = [...go.matchAll(/^func (\w+)Capture\(/gm)].map((m) => m[1]);
  assert.deepEqual(functions, ['Pageleave', 'Pageview', 'Screen', 'Beta', 'Under', 'Alpha', 'Zeta', 'Emoji']);
});

test('each property type maps per language', async () => {
  const project = await newProject(t, 'Types');
  await addEventWithSchema(t.db.pool, project, 'typed', [
    { name: 's', type: 'String', required: true },
    { name: 'n', type: 'Numeric', required: true },
    { name: 'b', type: 'Boolean', required: true },
    { name: 'd', type: 'DateTime', required: true },
    { name: 'a', type: 'Array', required: true },
    { name: 'o', type: 'Object', required: true },
    { name: 'u', type: 'Duration', required: true },
    { name: 'x', type: 'Custom', required: true },
  ]);
  const ts = (await generated(t, project, 'typescript')).content;
  for (const line of ['"s": string', '"n": number', '"b": boolean', '"d": string | Date', '"a": any[]', '"o": Record<string, any>', '"u": any', '"x": any']) {
    assert.ok(ts.includes(`        ${line}\n`), line);
  }
  const py = (await generated(t, project, 'python')).content;
  for (const line of ['s: str', 'n: float', 'b: bool', 'd: datetime', 'a: List[Any]', 'o: Dict[str, Any]', 'u: Any', 'x: Any']) {
    assert.ok(py.includes(`        ${line},\n`), line);
  }
  assert.match(py, /^from datetime import datetime$/m);
  assert.match(py, /^from typing import Any, Dict, List, Optional$/m);
  const go = (await generated(t, project, 'golang')).content;
  assert.ok(
    go.includes(
      'func TypedCapture(distinctId string, a []interface{}, b bool, d time.Time, n float64, o map[string]interface{}, s string, u interface{}, x interface{}, options ...TypedOption) posthog.Capture {',
    ),
    go,
  );
  assert.match(go, /^import \(\n\t"time"\n\n\t"github.com\/posthog\/posthog-go"\n\)$/m);

  // No DateTime: no datetime import in Python, no time import in Go.
  const plain = await newProject(t, 'No dates');
  await addEventWithSchema(t.db.pool, plain, 'plain', [{ name: 's', type: 'String' }]);
  assert.doesNotMatch((await generated(t, plain, 'python')).content, /datetime/);
  const plainGo = (await generated(t, plain, 'golang')).content;
  assert.doesNotMatch(plainGo, /"time"/);
  assert.match(plainGo, /^import \(\n\t"github.com\/posthog\/posthog-go"\n\)$/m);
});

test('required and optional properties (is_optional_in_types makes a required property optional in types)', async () => {
  const project = await newProject(t, 'Required');
  await addEventWithSchema(t.db.pool, project, 'signup', [
    { name: 'plan', type: 'String', required: true },
    { name: 'seats', type: 'Numeric' },
    { name: 'soft', type: 'Boolean', required: true, optionalInTypes: true },
  ]);
  const ts = (await generated(t, project, 'typescript')).content;
  assert.ok(ts.includes('    "signup": {\n        "plan": string\n        "seats"?: number\n        "soft"?: boolean\n    }\n'), ts);
  const py = (await generated(t, project, 'python')).content;
  assert.ok(
    py.includes(
      '    def capture_signup(\n        self,\n        *,\n        plan: str,\n        seats: Optional[float] = None,\n        soft: Optional[bool] = None,\n        extra_properties: Optional[Dict[str, Any]] = None,\n        **kwargs: Unpack[OptionalCaptureArgs],\n    ) -> Optional[str]:\n',
    ),
    py,
  );
  assert.ok(py.includes('        properties: Dict[str, Any] = {\n            "plan": plan,\n        }\n        if seats is not None:\n            properties["seats"] = seats\n'));
  assert.ok(py.includes('        return self.capture("signup", properties=properties, **kwargs)\n'));
  const go = (await generated(t, project, 'golang')).content;
  assert.ok(go.includes('func SignupCapture(distinctId string, plan string, options ...SignupOption) posthog.Capture {'), go);
  assert.ok(go.includes('func SignupCaptureFromBase(base posthog.Capture, plan string, options ...SignupOption) posthog.Capture {'));
  assert.ok(go.includes('func SignupWithSeats(seats float64) SignupOption {'));
  assert.ok(go.includes('func SignupWithSoft(soft bool) SignupOption {'));
  assert.ok(go.includes('func SignupWithExtraProps(props posthog.Properties) SignupOption {'));
  assert.ok(!go.includes('SignupWithPlan'));
});

test('without a schema: observed properties, all optional and typed; with nothing observed: a loose type', async () => {
  const project = await newProject(t, 'Observed');
  const db = t.db.pool;
  await addEvent(db, project, 'seen');
  await observe(db, project, 'seen', [
    { name: 'plan', type: 'String' },
    { name: 'seats', type: 'Numeric' },
    { name: 'when', type: 'DateTime' },
    { name: 'blob', type: null },
    { name: 'nodef' },
    { name: '$browser', type: 'String' },
  ]);
  // A person property of the same name does not count; neither do other events' properties.
  await db.query("INSERT INTO property_definitions (project_id, name, type, property_type) VALUES ($1, 'seats', 2, 'Boolean')", [project]);
  await addEvent(db, project, 'unseen');
  // A schema wins over what was observed.
  await addEventWithSchema(db, project, 'schemed', [{ name: 'declared', type: 'String', required: true }]);
  await observe(db, project, 'schemed', [{ name: 'observed_only', type: 'String' }]);

  const ts = (await generated(t, project, 'typescript')).content;
  assert.ok(
    ts.includes('    "seen": {\n        "blob"?: any\n        "nodef"?: any\n        "plan"?: string\n        "seats"?: number\n        "when"?: string | Date\n    }\n'),
    ts,
  );
  assert.ok(ts.includes('    "unseen": Record<string, any>\n'));
  assert.ok(ts.includes('    "schemed": {\n        "declared": string\n    }\n'));
  assert.ok(!ts.includes('observed_only') && !ts.includes('$browser'));

  const py = (await generated(t, project, 'python')).content;
  assert.ok(
    py.includes(
      '        *,\n        blob: Optional[Any] = None,\n        nodef: Optional[Any] = None,\n        plan: Optional[str] = None,\n        seats: Optional[float] = None,\n        when: Optional[datetime] = None,\n        extra_properties',
    ),
    py,
  );
  assert.ok(py.includes('    def capture_unseen(\n        self,\n        *,\n        extra_properties: Optional[Dict[str, Any]] = None,\n'));

  const go = (await generated(t, project, 'golang')).content;
  assert.ok(go.includes('func SeenCapture(distinctId string, options ...SeenOption) posthog.Capture {'), go);
  assert.ok(go.includes('func SeenWithWhen(when time.Time) SeenOption {'));
  assert.ok(go.includes('func SeenWithBlob(blob interface{}) SeenOption {'));
  assert.ok(go.includes('func UnseenCapture(distinctId string, properties ...posthog.Properties) posthog.Capture {'));
  assert.ok(go.includes('func SchemedCapture(distinctId string, declared string, options ...SchemedOption) posthog.Capture {'));
});

test('a property in several groups appears once: union of types, optional if any occurrence is', async () => {
  const project = await newProject(t, 'Dedupe');
  const db = t.db.pool;
  const event = await addEvent(db, project, 'dup');
  await attach(db, event, await addGroup(db, project, 'one', [{ name: 'x', type: 'String', required: true }, { name: 'y', type: 'Numeric', required: true }, { name: 'z', type: 'String', required: true }]));
  await attach(db, event, await addGroup(db, project, 'two', [{ name: 'x', type: 'Numeric', required: true }, { name: 'y', type: 'Numeric' }, { name: 'z', type: 'DateTime', required: true }]));
  const ts = (await generated(t, project, 'typescript')).content;
  assert.ok(ts.includes('    "dup": {\n        "x": string | number\n        "y"?: number\n        "z": string | Date\n    }\n'), ts);
  const py = (await generated(t, project, 'python')).content;
  assert.ok(py.includes('        x: Union[str, float],\n        z: Union[str, datetime],\n        y: Optional[float] = None,\n'), py);
  const go = (await generated(t, project, 'golang')).content;
  assert.ok(go.includes('func DupCapture(distinctId string, x interface{}, z interface{}, options ...DupOption) posthog.Capture {'), go);
  assert.ok(go.includes('func DupWithY(y float64) DupOption {'));
  assert.doesNotMatch(go, /"time"/);
});

test('schema_hash: the documented digest, stable over time, changed by any property change', async () => {
  const project = await newProject(t, 'Hash');
  const db = t.db.pool;
  const event = await addEventWithSchema(db, project, 'e', [{ name: 'p', type: 'String', required: true }]);
  await addEvent(db, project, 'f');

  // First 32 hex of sha256 over compact JSON, events by name, [name, type, required] triples.
  for (const language of LANGUAGES) {
    const body = await generated(t, project, language);
    assert.equal(body.schema_hash, sha32(`{"schemas":[["e",[["p","String",true]]],["f",[]]],"version":"${VERSIONS[language]}"}`), language);
    assert.match(body.content, new RegExp(`Generator version: ${VERSIONS[language].replace(/\./g, '\\.')}$`, 'm'));
  }

  const first = await generated(t, project, 'typescript');
  const stamp = /Generated at: (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)$/m.exec(first.content);
  assert.ok(stamp, 'ISO 8601 UTC generated-at in the header');
  await new Promise((resolve) => setTimeout(resolve, 5));
  const second = await generated(t, project, 'typescript');
  assert.notEqual(second.content, first.content, 'the generated-at line moves');
  assert.equal(timeless(second.content), timeless(first.content));
  assert.equal(second.schema_hash, first.schema_hash);

  const hashNow = async () => (await generated(t, project, 'typescript')).schema_hash;
  // Excluded events and other projects change nothing.
  await addEvent(db, project, '$autocapture');
  await addEventWithSchema(db, await newProject(t, 'Elsewhere'), 'e', [{ name: 'q', type: 'Numeric' }]);
  assert.equal(await hashNow(), first.schema_hash);

  const changes: [string, string, unknown[]][] = [
    ['type', "UPDATE schema_property_group_properties SET property_type = 'Numeric' WHERE name = 'p' AND property_group_id IN (SELECT property_group_id FROM event_schemas WHERE event_definition_id = $1)", [event]],
    ['required', "UPDATE schema_property_group_properties SET is_required = false WHERE name = 'p' AND property_group_id IN (SELECT property_group_id FROM event_schemas WHERE event_definition_id = $1)", [event]],
    ['optional in types', "UPDATE schema_property_group_properties SET is_optional_in_types = true WHERE name = 'p' AND property_group_id IN (SELECT property_group_id FROM event_schemas WHERE event_definition_id = $1)", [event]],
    ['renamed', "UPDATE schema_property_group_properties SET name = 'p2' WHERE name = 'p' AND property_group_id IN (SELECT property_group_id FROM event_schemas WHERE event_definition_id = $1)", [event]],
  ];
  for (const [label, sql, params] of changes) {
    await db.query(sql, params);
    assert.notEqual(await hashNow(), first.schema_hash, label);
    await db.query(
      "UPDATE schema_property_group_properties SET name = 'p', property_type = 'String', is_required = true, is_optional_in_types = false WHERE property_group_id IN (SELECT property_group_id FROM event_schemas WHERE event_definition_id = $1)",
      [event],
    );
    assert.equal(await hashNow(), first.schema_hash, `${label} undone`);
  }

  // A new event, an observed property on the schemaless one, a second group: all change it.
  await observe(db, project, 'f', [{ name: 'seen', type: 'String' }]);
  const withObserved = await hashNow();
  assert.notEqual(withObserved, first.schema_hash);
  await attach(db, event, await addGroup(db, project, 'more', [{ name: 'extra', type: 'Boolean' }]));
  const withGroup = await hashNow();
  assert.notEqual(withGroup, withObserved);
  await addEvent(db, project, 'g');
  assert.notEqual(await hashNow(), withGroup);
});
