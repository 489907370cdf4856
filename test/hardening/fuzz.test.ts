/**
 * Hostile input to every route (issue 12). The routes come from the app itself (its `onRoute`
 * hook), so a new route is fuzzed without anyone listing it. Table-driven cases (raw bodies,
 * content types, gzip bombs, auth headers) and generated ones (every field of a good body, and
 * every top-level field the body schema names, replaced by values of every wrong kind; query
 * parameters; path parameters) are sent, and the run fails on any 5xx, any request that does not
 * answer within its timeout, the process failing its health check afterwards, or memory growing
 * past a bound. Deterministic: a seeded generator picks the samples.
 *
 * FUZZ_FULL=1 sends every generated case (about 8,000; a few minutes on a busy machine),
 * FUZZ_BUDGET_MS changes the time budget, FUZZ_PROFILE=1 prints the slowest cases.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import type { InjectOptions, LightMyRequestResponse, RouteOptions } from 'fastify';
import { createLogger } from '../../src/kernel/logging.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const REQUEST_TIMEOUT_MS = 10_000;
/**
 * Wall time for sending (the run stays near a minute on a busy 2-core machine): cases are
 * interleaved across routes, so every route gets its first cases early and the budget trims each
 * route's tail. FUZZ_FULL=1 sends every generated case whatever it takes.
 */
const BUDGET_MS = process.env.FUZZ_FULL ? Number.POSITIVE_INFINITY : Number(process.env.FUZZ_BUDGET_MS ?? 45_000);
/** Part of the budget kept for the DELETE routes, sent last so the fixtures live through the rest. */
const DELETE_SHARE = 0.15;
const CONCURRENCY = 6;
/** How far the process's RSS may rise above where it started during the whole run. */
const MAX_RSS_GROWTH_BYTES = 800 * 1024 * 1024;
/** Hostile values tried on each field of a good body (a seeded sample of HOSTILE_VALUES). */
const VALUES_PER_FIELD = 8;

// ------------------------------------------------------------------------------------------------
// What is sent

const deepArray = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));
const deepObject = (depth: number): unknown => JSON.parse('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

/** Values of every kind a field should not get (and some it may get, at their edges). */
const HOSTILE_VALUES: unknown[] = [
  null, true, false, 0, -1, 1.5, 2_147_483_648, -2_147_483_649, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2,
  '', ' ', 'x'.repeat(100_000), '\u0000', 'a\u0000b', '\ud800', 'x\udfff', '😀', '\u202e\ufeff',
  '2016-12-31T23:59:60Z', '0000-01-01T00:00:00Z', '2021-02-30T00:00:00Z', '+275760-09-13T00:00:00Z', '9999-12-31T23:59:59-01:00', '-7d', 'now',
  {}, [], [null], [[]], { toString: 'x' }, { valueOf: 1, toJSON: 2 }, { length: -1 }, [1, 'a', {}], deepArray(40), deepObject(40),
  '^(a+)+$', '(?<=x)y', '[', '\\', '%', '_', "'; DROP TABLE feature_flags; --", '<script>alert(1)</script>', '../../etc/passwd',
  `phx_${'a'.repeat(40)}`, 999_999_999, '00000000-0000-0000-0000-000000000000', 'not-a-uuid', -0.0000001,
];

/** Whole bodies (as text or bytes), each sent with its content type. */
const RAW_BODIES: { name: string; payload: string | Buffer; headers: Record<string, string> }[] = [
  { name: 'deep array 10k', payload: '['.repeat(10_000) + ']'.repeat(10_000), headers: { 'content-type': 'application/json' } },
  { name: 'deep object 10k', payload: '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000), headers: { 'content-type': 'application/json' } },
  { name: 'unterminated 100k', payload: '['.repeat(100_000), headers: { 'content-type': 'application/json' } },
  { name: 'NUL escapes', payload: '{"name":"\\u0000","key":"k\\u0000","filters":{"\\u0000":"\\u0000"}}', headers: { 'content-type': 'application/json' } },
  { name: 'lone surrogate escapes', payload: '{"name":"\\ud800","description":"\\udfff"}', headers: { 'content-type': 'application/json' } },
  { name: 'prototype pollution', payload: '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}', headers: { 'content-type': 'application/json' } },
  { name: 'broken JSON', payload: '{"a":', headers: { 'content-type': 'application/json' } },
  { name: 'JSON null', payload: 'null', headers: { 'content-type': 'application/json' } },
  { name: 'JSON array', payload: '[1,2]', headers: { 'content-type': 'application/json' } },
  { name: 'JSON string', payload: '"x"', headers: { 'content-type': 'application/json' } },
  { name: 'JSON number', payload: '1e999', headers: { 'content-type': 'application/json' } },
  { name: 'BOM', payload: '\ufeff{}', headers: { 'content-type': 'application/json' } },
  { name: 'invalid UTF-8', payload: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), headers: { 'content-type': 'application/json' } },
  { name: 'text/plain', payload: '{"a":1}', headers: { 'content-type': 'text/plain' } },
  { name: 'form', payload: 'a=1&data=%00', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
  { name: 'multipart', payload: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--', headers: { 'content-type': 'multipart/form-data; boundary=x' } },
  { name: 'xml', payload: '<a/>', headers: { 'content-type': 'application/xml' } },
  { name: 'utf-16 JSON', payload: Buffer.from('{"a":1}', 'utf16le'), headers: { 'content-type': 'application/json; charset=utf-16' } },
  { name: 'weird content type', payload: '{}', headers: { 'content-type': 'application/json;;;;=' } },
  { name: 'gzip bomb', payload: gzipSync(Buffer.alloc(40 * 1024 * 1024, 0x20)), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } },
  { name: 'broken gzip', payload: Buffer.from([0x1f, 0x8b, 0x08, 0, 1, 2, 3]), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } },
  { name: 'unknown encoding', payload: '{}', headers: { 'content-type': 'application/json', 'content-encoding': 'br' } },
];

/** Sent to a few routes only: bodies past the app-wide and ingestion size limits. */
const HUGE_BODIES = [
  { name: '11 MB JSON', payload: `{"name":"${'x'.repeat(11 * 1024 * 1024)}"}`, headers: { 'content-type': 'application/json' } },
  { name: '21 MB', payload: Buffer.alloc(21 * 1024 * 1024, 0x20), headers: { 'content-type': 'text/plain' } },
];

const QUERY_VALUES = ['%00', 'a%00b', '-1', '99999999999999999999', 'abc', 'x'.repeat(5000), '%ZZ', '%ED%A0%80', '[', '{"a":1}', '[1,2]', 'true', '', '2016-12-31T23:59:60Z', '-7d', '__proto__', '1e999', '%F0%9F%98%80'];
const QUERY_NAMES = ['token', 'search', 'limit', 'offset', 'distinct_id', 'key', 'id', 'type', 'date_from', 'date_to', 'order', 'properties', 'compression', 'v', 'api_key', 'event_names', 'tags', 'active', 'created_by_id', 'group_type_index'];
const PATH_VALUES = ['%00', '0', '-1', '99999999999', 'abc', '00000000-0000-0000-0000-000000000000', 'x'.repeat(300), '%ED%A0%80', '@current', '..', '%2F', '1.5', ' '];
const AUTH_HEADERS: (Record<string, string> | null)[] = [
  null,
  { authorization: `Bearer phx_${'w'.repeat(40)}` },
  { authorization: `Bearer ${'x'.repeat(10_000)}` },
  { authorization: 'Basic Zm9vOmJhcg==' },
  { authorization: 'Bearer phs_nope' },
  { cookie: 'bellwether_session=%00; bellwether_csrftoken=%ZZ' },
  { cookie: `bellwether_session=${'s'.repeat(5000)}` },
];

// ------------------------------------------------------------------------------------------------
// Seeded sampling

let seed = 0x12345678;
function random(): number {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 0x1_0000_0000;
}
function sample<T>(items: readonly T[], count: number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, count);
}

type Path = (string | number)[];

/** Every place in a JSON value (objects and lists too, not only leaves), the value itself excluded. */
function places(value: unknown, path: Path = [], out: Path[] = []): Path[] {
  if (Array.isArray(value)) value.forEach((item, i) => (out.push([...path, i]), places(item, [...path, i], out)));
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      out.push([...path, key]);
      places(inner, [...path, key], out);
    }
  }
  return out;
}

function replacedAt(value: unknown, path: Path, replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  node[path[path.length - 1]] = replacement;
  return copy;
}

// ------------------------------------------------------------------------------------------------
// The app, its routes and fixtures

interface Route {
  method: string;
  url: string;
  isPublic: boolean;
  bodyFields: string[];
  queryFields: string[];
}

interface Case {
  method: string;
  url: string;
  payload?: string | Buffer;
  headers?: Record<string, string>;
  /** null: no credentials; undefined: the test key. */
  auth?: Record<string, string> | null;
  /** One of RAW_BODIES. */
  raw?: boolean;
}

let t: TestApp;
const errorLog: string[] = [];
const routes = new Map<string, Route>();
const ids: Record<string, string> = {};
let projectToken = '';
let counter = 0;

function schemaFields(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties ? Object.keys(properties) : [];
}

function collect(route: RouteOptions): void {
  for (const method of [route.method].flat()) {
    if (method === 'HEAD') continue;
    const schema = route.schema as { body?: unknown; querystring?: unknown } | undefined;
    routes.set(`${method} ${route.url}`, {
      method,
      url: route.url,
      isPublic: Boolean((route.config as { public?: boolean } | undefined)?.public),
      bodyFields: schemaFields(schema?.body),
      queryFields: schemaFields(schema?.querystring),
    });
  }
}

async function ok(options: InjectOptions & { key?: string | null }, status = [200, 201]): Promise<LightMyRequestResponse> {
  const response = await t.request(options);
  assert.ok(status.includes(response.statusCode), `${options.method} ${options.url}: ${response.statusCode} ${response.body.slice(0, 300)}`);
  return response;
}

const flagBody = () => ({
  key: `fuzz-${++counter}`,
  name: 'Fuzzed flag',
  filters: {
    groups: [
      { properties: [{ key: 'email', type: 'person', value: ['a@example.com'], operator: 'exact' }], rollout_percentage: 50, variant: null },
      { properties: [{ key: 'id', type: 'cohort', value: Number(ids.cohort) }], rollout_percentage: 100 },
    ],
    multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] },
    payloads: { a: '{"x":1}' },
  },
  active: true,
  tags: ['t'],
  evaluation_runtime: 'all',
  ensure_experience_continuity: false,
  rollback_conditions: [],
  created_at: '2024-01-01T00:00:00Z',
});

const surveyBody = () => ({
  name: `Fuzzed survey ${++counter}`,
  type: 'popover',
  questions: [
    { type: 'single_choice', question: 'Pick', choices: ['a', 'b'], branching: { type: 'response_based', responseValues: { 0: 'end' } } },
    { type: 'rating', question: 'Rate', scale: 5, display: 'number' },
  ],
  conditions: { url: 'example', urlMatchType: 'icontains', events: { values: [{ name: 'e' }] } },
  appearance: { backgroundColor: '#ffffff', position: 'right' },
  targeting_flag_filters: { groups: [{ properties: [{ key: 'email', type: 'person', value: 'x', operator: 'icontains' }], rollout_percentage: 50 }] },
  linked_flag_id: Number(ids.flag),
  start_date: '2024-01-01T00:00:00Z',
  response_sampling_interval_type: 'week',
});

const cohortBody = () => ({
  name: `Fuzzed cohort ${++counter}`,
  filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'email', type: 'person', value: 'x', operator: 'icontains' }] }] } },
});

const eventsBody = () => ({
  api_key: projectToken,
  batch: [{ event: 'fuzz', distinct_id: 'fuzz-user', properties: { $set: { email: 'f@example.com' }, plan: 'pro' }, timestamp: '2024-01-01T00:00:00Z' }],
});

const sdkBody = () => ({ token: projectToken, distinct_id: 'fuzz-user', person_properties: { email: 'f@example.com' }, groups: {}, flag_keys_to_evaluate: ['base'] });

/** Good bodies to mutate, by route (method and URL as registered). */
const GOOD_BODIES: Record<string, () => unknown> = {
  'POST /api/projects/:project_id/feature_flags': flagBody,
  'PATCH /api/projects/:project_id/feature_flags/:id': () => ({ ...flagBody(), key: undefined }),
  'POST /api/projects/:project_id/surveys': surveyBody,
  'PATCH /api/projects/:project_id/surveys/:id': surveyBody,
  'POST /api/projects/:project_id/cohorts': cohortBody,
  'PATCH /api/projects/:project_id/cohorts/:id': cohortBody,
  'POST /batch': eventsBody,
  'POST /e': eventsBody,
  'POST /flags': sdkBody,
  'POST /decide': sdkBody,
  'POST /ofrep/v1/evaluate/flags': () => ({ context: { targetingKey: 'fuzz-user', email: 'f@example.com' } }),
  'POST /api/projects/:project_id/feature_flags/user_blast_radius': () => ({ condition: { properties: [{ key: 'email', type: 'person', value: 'x', operator: 'icontains' }], rollout_percentage: 50 }, group_type_index: null }),
  'POST /api/projects/:project_id/feature_flags/bulk_keys': () => ({ ids: [Number(ids.flag), 'x'] }),
  'POST /api/projects/:project_id/schema_property_groups': () => ({ name: `group ${++counter}`, properties: [{ name: 'p', property_type: 'String', is_required: false }] }),
  'POST /api/projects/:project_id/event_definitions': () => ({ name: `def ${++counter}` }),
  'PATCH /api/projects/:project_id/event_definitions/:id': () => ({ description: 'd', tags: ['a'], verified: true }),
  'PATCH /api/projects/:project_id/property_definitions/:id': () => ({ description: 'd', property_type: 'String', tags: [] }),
  'POST /api/projects/:project_id/surveys/:id/duplicate_to_projects': () => ({ target_project_ids: [t.projectId] }),
  'POST /api/personal_api_keys': () => ({ label: `k${++counter}`, scopes: ['feature_flag:read'], scoped_teams: [t.projectId] }),
  'PATCH /api/projects/:project_id': () => ({ name: 'Renamed', timezone: 'UTC' }),
};

/** The value to put for a path parameter, given the URL around it. */
function paramValue(url: string, name: string): string {
  switch (name) {
    case 'project_id':
      return String(t.projectId);
    case 'organization_id':
      return ids.organization;
    case 'token':
      return projectToken;
    case 'key':
      return 'base';
    case 'response_uuid':
      return '0190a2b4-0000-7000-8000-000000000000';
    case '*':
      return 'index.html';
    case 'id': {
      const resource = /\/([a-z_]+)\/:id/.exec(url)?.[1] ?? '';
      const byResource: Record<string, string | undefined> = {
        feature_flags: ids.flag,
        surveys: ids.survey,
        cohorts: ids.cohort,
        dashboards: ids.dashboard,
        event_definitions: ids.eventDefinition,
        property_definitions: ids.propertyDefinition,
        persons: ids.person,
        schema_property_groups: ids.propertyGroup,
        personal_api_keys: ids.spareKey,
      };
      return byResource[resource] ?? '1';
    }
    default:
      return '1';
  }
}

function fill(url: string, override?: { name: string; value: string }): string {
  return url.replace(/:([a-z_]+)|\*$/g, (match, name: string | undefined) => {
    const param = name ?? '*';
    if (override && override.name === param) return override.value;
    return encodeURIComponent(paramValue(url, param));
  });
}

before(async () => {
  // Errors the app logs, to show what lay behind a 5xx.
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) errorLog.push(line);
      done();
    },
  });
  t = await startTestApp({ onRoute: collect, logger: createLogger('error', sink) });
  const p = `/api/projects/${t.projectId}`;
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  projectToken = rows[0].api_token;
  ids.organization = (await ok({ method: 'GET', url: '/api/organizations/' })).json().results[0].id;
  ids.cohort = String((await ok({ method: 'POST', url: `${p}/cohorts/`, payload: cohortBody() })).json().id);
  const flag = (await ok({ method: 'POST', url: `${p}/feature_flags/`, payload: { ...flagBody(), key: 'base' } })).json();
  ids.flag = String(flag.id);
  ids.dashboard = String(flag.usage_dashboard);
  ids.survey = (await ok({ method: 'POST', url: `${p}/surveys/`, payload: surveyBody() })).json().id;
  await ok({ method: 'POST', url: '/batch/', payload: eventsBody(), key: null });
  ids.eventDefinition = (await ok({ method: 'GET', url: `${p}/event_definitions/` })).json().results[0].id;
  ids.propertyDefinition = (await ok({ method: 'GET', url: `${p}/property_definitions/` })).json().results[0].id;
  ids.person = String((await ok({ method: 'GET', url: `${p}/persons/` })).json().results[0].id);
  ids.propertyGroup = String((await ok({ method: 'POST', url: `${p}/schema_property_groups/`, payload: { name: 'base group', properties: [] } })).json().id);
  ids.spareKey = String((await ok({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'spare', scopes: ['*'] } })).json().id);
});
after(() => t.close());

// ------------------------------------------------------------------------------------------------
// The cases

function bodyCases(route: Route): Case[] {
  if (!['POST', 'PATCH', 'PUT'].includes(route.method)) return [];
  const key = `${route.method} ${route.url}`;
  const url = fill(route.url);
  const cases: Case[] = [];
  const json = (body: unknown) => ({ payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const good = key in GOOD_BODIES ? GOOD_BODIES[key] : undefined;
  if (good) {
    for (const place of places(good())) {
      for (const value of sample(HOSTILE_VALUES, VALUES_PER_FIELD)) cases.push({ method: route.method, url, ...json(replacedAt(good(), place, value)) });
    }
    // Fields the schema names that the good body lacks, and the good body with a field removed.
    for (const field of route.bodyFields) cases.push({ method: route.method, url, ...json({ ...(good() as object), [field]: sample(HOSTILE_VALUES, 1)[0] }) });
  } else {
    for (const field of route.bodyFields) {
      for (const value of sample(HOSTILE_VALUES, VALUES_PER_FIELD)) cases.push({ method: route.method, url, ...json({ [field]: value }) });
    }
  }
  // Every raw body where a body is read; a few where the route only refuses the method (405).
  const raws = good || route.isPublic ? RAW_BODIES : sample(RAW_BODIES, route.bodyFields.length > 0 ? 6 : 2);
  for (const raw of raws) cases.push({ method: route.method, url, payload: raw.payload, headers: raw.headers, raw: true });
  return cases;
}

function queryCases(route: Route): Case[] {
  if (route.method !== 'GET' && route.method !== 'POST') return [];
  const names = [...new Set([...route.queryFields, ...sample(QUERY_NAMES, 3)])];
  const cases: Case[] = [];
  for (const name of names) {
    for (const value of ['%00', ...sample(QUERY_VALUES, 1)]) {
      cases.push({ method: route.method, url: `${fill(route.url)}?${name}=${value}` });
    }
  }
  cases.push({ method: route.method, url: `${fill(route.url)}?${names.map((n) => `${n}=1&${n}=2`).join('&')}` });
  return cases;
}

function pathCases(route: Route): Case[] {
  const params = [...route.url.matchAll(/:([a-z_]+)/g)].map((m) => m[1]);
  return params.flatMap((name) =>
    sample(PATH_VALUES, 3).map((value) => ({ method: route.method, url: fill(route.url, { name, value }), payload: route.method === 'GET' ? undefined : '{}', headers: route.method === 'GET' ? undefined : { 'content-type': 'application/json' } })),
  );
}

function authCases(route: Route): Case[] {
  return sample(AUTH_HEADERS, route.isPublic ? 1 : 2).map((auth) => ({ method: route.method, url: fill(route.url), auth, payload: route.method === 'GET' ? undefined : '{}', headers: route.method === 'GET' ? undefined : { 'content-type': 'application/json' } }));
}

// ------------------------------------------------------------------------------------------------
// Sending

const PROFILE: [number, string][] = [];

interface Outcome {
  requests: number;
  failures: string[];
  statuses: Map<number, number>;
  slowest: { ms: number; what: string };
}

function describeCase(c: Case): string {
  const payload = c.payload === undefined ? '' : typeof c.payload === 'string' ? c.payload : `<${c.payload.length} bytes>`;
  return `${c.method} ${c.url.slice(0, 160)} ${payload.slice(0, 160)}`;
}

async function send(c: Case, outcome: Outcome): Promise<void> {
  const started = Date.now();
  const headers = { ...(c.headers ?? {}), ...(c.auth ?? {}) };
  const request = t.request({ method: c.method as InjectOptions['method'], url: c.url, payload: c.payload, headers, key: c.auth === undefined ? undefined : null });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), REQUEST_TIMEOUT_MS)));
  const result = await Promise.race([request.catch((error: Error) => error), timeout]);
  clearTimeout(timer);
  outcome.requests++;
  const ms = Date.now() - started;
  if (ms > outcome.slowest.ms) outcome.slowest = { ms, what: describeCase(c) };
  if (process.env.FUZZ_PROFILE) PROFILE.push([ms, describeCase(c).slice(0, 140)]);
  if (result === 'timeout') {
    outcome.failures.push(`no answer in ${REQUEST_TIMEOUT_MS} ms: ${describeCase(c)}`);
    return;
  }
  if (result instanceof Error) {
    outcome.failures.push(`inject failed (${result.message}): ${describeCase(c)}`);
    return;
  }
  outcome.statuses.set(result.statusCode, (outcome.statuses.get(result.statusCode) ?? 0) + 1);
  if (result.statusCode >= 500 && !databaseBusy(c, result)) {
    const requestId = String(result.headers['x-request-id'] ?? '');
    const cause = errorLog.find((line) => requestId !== '' && line.includes(requestId)) ?? '';
    const error = cause ? (JSON.parse(cause) as { err?: { message?: string; stack?: string } }).err : undefined;
    outcome.failures.push(`${result.statusCode} ${result.body.slice(0, 120)} ← ${describeCase(c)} ⇐ ${error?.stack?.split('\n').slice(0, 3).join(' | ') ?? 'no error logged'}`);
  }
}

/**
 * A 503 saying the database could not serve in time is the answer the service gives on purpose
 * when the machine is saturated (the fuzzer on a busy 2-core machine can do that): not a failure
 * of input handling. Every other 5xx is.
 */
function databaseBusy(c: Case, response: LightMyRequestResponse): boolean {
  if (response.statusCode !== 503) return false;
  if (c.url.startsWith('/_readyz')) return true;
  try {
    return (response.json() as { code?: string }).code === 'database_unavailable';
  } catch {
    return false;
  }
}

/** Sends cases until they run out or `deadline` passes; answers how many were sent. */
async function sendAll(cases: Case[], outcome: Outcome, deadline: number): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < cases.length && Date.now() < deadline) await send(cases[next++], outcome);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return next;
}

/**
 * Round after round, `weight` cases of each route: routes whose good bodies reach deep into the
 * services (flags, surveys, cohorts, ingestion, SDK) get more of each round than routes that only
 * answer 405.
 */
function interleave(perRoute: { cases: Case[]; weight: number }[]): Case[] {
  const out: Case[] = [];
  const queues = perRoute.map(({ cases, weight }) => ({ cases: [...cases], weight }));
  while (queues.some((q) => q.cases.length > 0)) {
    for (const queue of queues) out.push(...queue.cases.splice(0, queue.weight));
  }
  return out;
}

function weightOf(route: Route): number {
  if (`${route.method} ${route.url}` in GOOD_BODIES) return 8;
  return route.bodyFields.length > 0 || route.queryFields.length > 0 || route.isPublic ? 2 : 1;
}

function casesOf(route: Route): Case[] {
  return sample([...bodyCases(route), ...queryCases(route), ...pathCases(route), ...authCases(route)], Number.MAX_SAFE_INTEGER);
}

test('hostile input to every route: no 5xx, no hang, the process healthy, memory bounded', async (context) => {
  const all = [...routes.values()].filter((route) => route.method !== 'OPTIONS' || route.url.length > 0);
  assert.ok(all.length > 200, `routes found: ${all.length}`);
  const main = interleave(all.filter((r) => r.method !== 'DELETE').map((route) => ({ cases: casesOf(route), weight: weightOf(route) })));
  for (const url of ['/batch/', '/e/', '/flags?v=2', `/api/projects/${t.projectId}/feature_flags/`]) {
    for (const huge of HUGE_BODIES) main.unshift({ method: 'POST', url, payload: huge.payload, headers: huge.headers });
  }
  const deletes = interleave(all.filter((r) => r.method === 'DELETE').map((route) => ({ cases: casesOf(route), weight: 1 })));

  const outcome: Outcome = { requests: 0, failures: [], statuses: new Map(), slowest: { ms: 0, what: '' } };
  const rssAtStart = process.memoryUsage().rss;
  let rssPeak = rssAtStart;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
  const started = Date.now();
  let sent = 0;
  try {
    sent += await sendAll(main, outcome, started + BUDGET_MS * (1 - DELETE_SHARE));
    sent += await sendAll(deletes, outcome, Date.now() + BUDGET_MS * DELETE_SHARE);
  } finally {
    clearInterval(sampler);
  }
  const generated = main.length + deletes.length;
  const seconds = (Date.now() - started) / 1000;
  const health = await t.app.inject({ method: 'GET', url: '/_health' });
  // The project itself may have been deleted by the last cases: ask for something that outlives it.
  const list = await t.request({ method: 'GET', url: '/api/users/@me/' });

  const fiveHundreds = [...outcome.statuses].filter(([status]) => status >= 500 && status !== 503).reduce((n, [, count]) => n + count, 0);
  const summary =
    `fuzz: ${outcome.requests} requests (of ${generated} generated) to ${all.length} routes in ${seconds.toFixed(1)} s; 5xx other than 503: ${fiveHundreds}; ` +
    `failures: ${outcome.failures.length}; statuses ${JSON.stringify(Object.fromEntries([...outcome.statuses].sort(([a], [b]) => a - b)))}; ` +
    `RSS ${Math.round(rssAtStart / 1e6)} → peak ${Math.round(rssPeak / 1e6)} MB; slowest ${outcome.slowest.ms} ms (${outcome.slowest.what.slice(0, 120)})`;
  context.diagnostic(summary);
  if (process.env.FUZZ_PROFILE) {
    const top = PROFILE.sort((a, b) => b[0] - a[0]).slice(0, 60);
    process.stdout.write(`total ms ${PROFILE.reduce((n, [ms]) => n + ms, 0)}\n${top.map(([ms, what]) => `${ms} ${what}`).join('\n')}\n`);
  }
  process.stdout.write(`${summary}\n`);

  assert.deepEqual(outcome.failures.slice(0, 30), [], `${outcome.failures.length} failures`);
  assert.ok(sent >= all.length, `every route got at least one case (${sent} sent)`);
  assert.equal(health.statusCode, 200, 'the process still answers its health check');
  assert.equal(list.statusCode, 200, list.body);
  assert.ok(rssPeak - rssAtStart < MAX_RSS_GROWTH_BYTES, `RSS grew by ${Math.round((rssPeak - rssAtStart) / 1e6)} MB`);
});
