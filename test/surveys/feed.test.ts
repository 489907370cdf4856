// The public posthog-js feed GET /api/surveys/?token= and the remote config posthog-js reads before
// it (/array/<token>/config[.js]): shape, what is listed, token errors, CORS, ETag/304, and the
// in-memory cache kept true to changes made here and by another instance on the same database.
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { after, before, test } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createFlag, patchFlag } from '../flags/flag-client.ts';
import { createSurvey, getSurvey, patchSurvey, type Json } from './support.ts';
import { eventually } from '../helpers/eventually.ts';
import { noticesHeard } from '../helpers/notices.ts';

let t: TestApp;
let token: string;
/** A second instance on the same database, as another process would be. */
let otherPool: Pool;
let other: FastifyInstance;

before(async () => {
  t = await startTestApp();
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  token = rows[0].api_token;
  otherPool = createPool(t.db.url, 4);
  other = await buildApp({ pool: otherPool, databaseUrl: t.db.url });
  await other.ready();
});
after(async () => {
  await other.close();
  await otherPool.end();
  await t.close();
});

const FEED_KEYS_ALWAYS = [
  'id',
  'name',
  'type',
  'questions',
  'conditions',
  'appearance',
  'start_date',
  'end_date',
  'current_iteration',
  'current_iteration_start_date',
  'schedule',
  'enable_partial_responses',
];

/** GET the feed without any API key (it is public). */
function getFeed(options: { url?: string; headers?: Record<string, string>; app?: FastifyInstance } = {}) {
  const request: InjectOptions = { method: 'GET', url: options.url ?? `/api/surveys/?token=${token}`, headers: options.headers };
  return options.app ? options.app.inject(request) : t.request({ ...request, key: null });
}

async function feedSurveys(app?: FastifyInstance): Promise<Json[]> {
  const response = await getFeed({ app });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().surveys;
}

async function listed(id: unknown, app?: FastifyInstance): Promise<Json | undefined> {
  return (await feedSurveys(app)).find((survey) => survey.id === id);
}

const aDayAgo = () => new Date(Date.now() - 86_400_000).toISOString();

/** Counts the queries the app sends to the database while `run` runs. */
async function countQueries(run: () => Promise<unknown>): Promise<number> {
  const pool = t.db.pool;
  const query = pool.query;
  const connect = pool.connect;
  let count = 0;
  pool.query = ((...args: Parameters<Pool['query']>) => {
    count++;
    return (query as (...a: unknown[]) => unknown).apply(pool, args);
  }) as Pool['query'];
  pool.connect = ((...args: Parameters<Pool['connect']>) => {
    count++;
    return (connect as (...a: unknown[]) => unknown).apply(pool, args);
  }) as Pool['connect'];
  try {
    await run();
  } finally {
    pool.query = query;
    pool.connect = connect;
  }
  return count;
}

test('the feed lists a survey with exactly the public fields, description left out', async () => {
  const created = await createSurvey(t, {
    description: 'Only for the team',
    questions: [{ type: 'open', question: 'What can we do better?' }],
    conditions: { url: 'pricing', urlMatchType: 'icontains' },
    appearance: { backgroundColor: '#eeeeee' },
    translations: { fr: { name: 'Enquête' } },
    start_date: aDayAgo(),
  });
  const stored = await getSurvey(t, created.id);

  const response = await getFeed();
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  const body = response.json();
  assert.deepEqual(Object.keys(body), ['surveys', 'survey_config']);
  assert.equal(body.survey_config, null);

  const item = body.surveys.find((survey: Json) => survey.id === created.id);
  assert.ok(item, 'the survey is listed');
  assert.deepEqual(Object.keys(item), [
    'id',
    'name',
    'type',
    'internal_targeting_flag_key',
    ...FEED_KEYS_ALWAYS.slice(3),
    'translations',
  ]);
  assert.equal(item.name, stored.name);
  assert.equal(item.type, 'popover');
  assert.equal(item.internal_targeting_flag_key, (stored.internal_targeting_flag as Json).key);
  assert.deepEqual(item.questions, stored.questions, 'questions as stored (with their ids)');
  assert.deepEqual(item.conditions, stored.conditions);
  assert.deepEqual(item.appearance, stored.appearance);
  assert.deepEqual(item.translations, stored.translations);
  assert.equal(item.start_date, stored.start_date);
  assert.equal(item.end_date, null);
  assert.equal(item.current_iteration, stored.current_iteration);
  assert.equal(item.current_iteration_start_date, stored.current_iteration_start_date);
  assert.equal(item.schedule, 'once');
  assert.equal(item.enable_partial_responses, false);
  assert.ok(!('description' in item) && !response.body.includes('Only for the team'), 'description never leaves the service');
  assert.ok(!('feature_flag_keys' in item) && !('archived' in item) && !('created_by' in item));

  // The same answer with or without the trailing slash.
  assert.equal((await getFeed({ url: `/api/surveys?token=${token}` })).body, response.body);
});

test('translations appear only when they hold something; flag keys only for the flags the survey has', async () => {
  const plain = await createSurvey(t, { translations: {} });
  const item = await listed(plain.id);
  assert.ok(item);
  assert.ok(!('translations' in item), 'empty translations are left out');
  assert.ok(!('linked_flag_key' in item) && !('targeting_flag_key' in item), 'no linked or targeting flag, no keys');
  assert.equal(typeof item.internal_targeting_flag_key, 'string');

  const linked = await createFlag(t, { key: 'beta-programme', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  const targeted = await createSurvey(t, {
    linked_flag_id: linked.id,
    targeting_flag_filters: { groups: [{ properties: [{ key: 'plan', value: ['pro'], operator: 'exact', type: 'person' }], rollout_percentage: 100 }] },
    start_date: aDayAgo(),
  });
  const stored = await getSurvey(t, targeted.id);
  const withFlags = await listed(targeted.id);
  assert.ok(withFlags);
  assert.deepEqual(Object.keys(withFlags).slice(0, 6), ['id', 'name', 'type', 'linked_flag_key', 'targeting_flag_key', 'internal_targeting_flag_key']);
  assert.equal(withFlags.linked_flag_key, 'beta-programme');
  assert.equal(withFlags.targeting_flag_key, (stored.targeting_flag as Json).key);
  assert.match(String(withFlags.targeting_flag_key), /^survey-targeting-[a-z0-9]+$/);
  assert.equal(withFlags.internal_targeting_flag_key, (stored.internal_targeting_flag as Json).key);

  // Removing the targeting flag (PATCH in this process): gone from the next answer at once.
  assert.equal((await patchSurvey(t, targeted.id, { remove_targeting_flag: true })).statusCode, 200);
  const removed = await listed(targeted.id);
  assert.ok(removed && !('targeting_flag_key' in removed), 'a removed targeting flag is not named');

  // The linked flag renamed through the flags API: the feed follows (this process's own notice).
  assert.equal((await patchFlag(t, linked.id, { key: 'beta-programme-2' })).statusCode, 200);
  await eventually('the renamed linked flag in the feed', async () => (await listed(targeted.id))?.linked_flag_key === 'beta-programme-2');

  // A deleted linked flag stays named: posthog-js then finds it off and keeps the survey hidden,
  // rather than showing it to everyone.
  assert.equal((await patchFlag(t, linked.id, { deleted: true })).statusCode, 200);
  await noticesHeard(t.app.changeBus, t.db.pool);
  assert.equal((await listed(targeted.id))?.linked_flag_key, 'beta-programme-2');
});

test('archived surveys are left out; drafts and finished ones are listed (posthog-js decides by their dates)', async () => {
  const draft = await createSurvey(t);
  const running = await createSurvey(t, { start_date: aDayAgo() });
  const finished = await createSurvey(t, { start_date: aDayAgo(), end_date: new Date().toISOString() });
  const archived = await createSurvey(t, { start_date: aDayAgo() });
  assert.ok(await listed(archived.id), 'listed before it is archived');
  assert.equal((await patchSurvey(t, archived.id, { archived: true })).statusCode, 200);

  const ids = (await feedSurveys()).map((survey) => survey.id);
  assert.ok(!ids.includes(archived.id), 'archived: not listed');
  for (const survey of [draft, running, finished]) assert.ok(ids.includes(survey.id), String(survey.name));
  assert.ok(ids.indexOf(draft.id) < ids.indexOf(running.id) && ids.indexOf(running.id) < ids.indexOf(finished.id), 'oldest first');
  assert.equal((await listed(draft.id))?.start_date, null);
  assert.notEqual((await listed(finished.id))?.end_date, null);

  assert.equal((await patchSurvey(t, archived.id, { archived: false })).statusCode, 200);
  assert.ok(await listed(archived.id), 'unarchived: listed again');
});

test('a missing or unknown token is a 401 in the standard error body; a project sees only its own surveys', async () => {
  for (const url of ['/api/surveys/', '/api/surveys/?token=', '/api/surveys?token=%20']) {
    const response = await getFeed({ url });
    assert.equal(response.statusCode, 401, url);
    const body = response.json();
    assert.deepEqual(Object.keys(body), ['type', 'code', 'detail', 'attr']);
    assert.equal(body.type, 'authentication_error');
    assert.equal(body.code, 'not_authenticated');
  }
  const unknown = await getFeed({ url: '/api/surveys/?token=phc_not_a_project' });
  assert.equal(unknown.statusCode, 401);
  assert.equal(unknown.json().code, 'authentication_failed');
  assert.equal((await getFeed({ url: `/api/surveys/?token=${'x'.repeat(500)}` })).statusCode, 401);
  // A personal API key is no substitute for the project token.
  const withKey = await t.request({ method: 'GET', url: '/api/surveys/' });
  assert.equal(withKey.statusCode, 401);
  // `api_key` is read like `token` (PostHog's public endpoints accept both).
  assert.equal((await getFeed({ url: `/api/surveys/?api_key=${token}` })).statusCode, 200);

  const project = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'Second' } });
  assert.equal(project.statusCode, 201, project.body);
  const second = await getFeed({ url: `/api/surveys/?token=${project.json().api_token}` });
  assert.equal(second.statusCode, 200);
  assert.deepEqual(second.json(), { surveys: [], survey_config: null });
});

test('CORS: any origin may read the feed and the remote config; preflight is answered; other methods are 405', async () => {
  const origin = 'https://shop.example';
  for (const url of [`/api/surveys/?token=${token}`, `/array/${token}/config`, `/array/${token}/config.js`]) {
    const response = await getFeed({ url, headers: { origin } });
    assert.equal(response.statusCode, 200, url);
    assert.equal(response.headers['access-control-allow-origin'], origin, url);
    assert.equal(response.headers['access-control-allow-credentials'], 'true');
    assert.match(String(response.headers.vary), /Origin/);
    assert.match(String(response.headers['access-control-expose-headers']), /ETag/i);
  }
  const failed = await getFeed({ url: '/api/surveys/?token=phc_nope', headers: { origin } });
  assert.equal(failed.statusCode, 401);
  assert.equal(failed.headers['access-control-allow-origin'], origin, 'errors are readable by the page too');
  const noOrigin = await getFeed();
  assert.equal(noOrigin.headers['access-control-allow-origin'], undefined, 'no CORS headers without an Origin');

  const preflight = await t.request({
    method: 'OPTIONS',
    url: '/api/surveys/',
    key: null,
    headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
  });
  assert.equal(preflight.statusCode, 204);
  assert.equal(preflight.body, '');
  assert.equal(preflight.headers['access-control-allow-origin'], origin);
  assert.equal(preflight.headers['access-control-allow-methods'], 'GET, OPTIONS');
  assert.equal(preflight.headers['access-control-allow-headers'], 'if-none-match');

  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
    const response = await t.request({ method, url: '/api/surveys/', key: null });
    assert.equal(response.statusCode, 405, method);
    assert.equal(response.json().code, 'method_not_allowed');
    assert.equal(response.headers.allow, 'GET, HEAD, OPTIONS');
  }
});

test('ETag: 304 while nothing changed, a new ETag after a PATCH; repeated reads cost no query', async () => {
  const survey = await createSurvey(t, { start_date: aDayAgo() });
  const first = await getFeed();
  const etag = String(first.headers.etag);
  assert.match(etag, /^W\/"[0-9a-f]{32}"$/);
  assert.equal(first.headers['cache-control'], 'private, must-revalidate');
  assert.equal((await getFeed()).headers.etag, etag, 'the same state, the same ETag');

  const queries = await countQueries(async () => {
    for (let i = 0; i < 5; i++) assert.equal((await getFeed()).statusCode, 200);
  });
  assert.equal(queries, 0, 'the feed is served from memory');

  for (const ifNoneMatch of [etag, etag.slice(2), `"other", ${etag}`, '*']) {
    const cached = await getFeed({ headers: { 'if-none-match': ifNoneMatch } });
    assert.equal(cached.statusCode, 304, ifNoneMatch);
    assert.equal(cached.body, '');
    assert.equal(cached.headers.etag, etag);
  }
  assert.equal((await getFeed({ headers: { 'if-none-match': 'W/"something-else"' } })).statusCode, 200);

  assert.equal((await patchSurvey(t, survey.id, { name: 'Renamed for the feed' })).statusCode, 200);
  const after = await getFeed({ headers: { 'if-none-match': etag } });
  assert.equal(after.statusCode, 200, 'the old ETag no longer matches right after the PATCH');
  assert.notEqual(after.headers.etag, etag);
  assert.equal(after.json().surveys.find((item: Json) => item.id === survey.id).name, 'Renamed for the feed');
});

test('a change made by another instance on the same database reaches this one promptly', async () => {
  const survey = await createSurvey(t, { start_date: aDayAgo() });
  // The other instance reads (and caches) the feed first.
  assert.ok(await listed(survey.id, other), 'the other instance lists the survey');
  const before = await getFeed({ app: other });

  assert.equal((await patchSurvey(t, survey.id, { name: 'Changed elsewhere' })).statusCode, 200);
  await eventually('the rename on the other instance', async () => (await listed(survey.id, other))?.name === 'Changed elsewhere');
  const changed = await getFeed({ app: other });
  assert.notEqual(changed.headers.etag, before.headers.etag);
  assert.equal(changed.headers.etag, (await getFeed()).headers.etag, 'both instances serve the same bytes and ETag');

  assert.equal((await patchSurvey(t, survey.id, { archived: true })).statusCode, 200);
  await eventually('the archived survey gone from the other instance', async () => (await listed(survey.id, other)) === undefined);

  const linked = await createFlag(t, { key: 'shared-linked-flag' });
  const withFlag = await createSurvey(t, { linked_flag_id: linked.id });
  await eventually('the new survey on the other instance', async () => (await listed(withFlag.id, other))?.linked_flag_key === 'shared-linked-flag');
  assert.equal((await patchFlag(t, linked.id, { key: 'shared-linked-flag-renamed' })).statusCode, 200);
  await eventually(
    'the renamed flag on the other instance',
    async () => (await listed(withFlag.id, other))?.linked_flag_key === 'shared-linked-flag-renamed',
  );
});

test('remote config: surveys on while the project has one; the script form carries the same config; unknown token 404', async () => {
  const response = await getFeed({ url: `/array/${token}/config` });
  assert.equal(response.statusCode, 200);
  const config = response.json();
  assert.equal(config.token, token);
  assert.equal(config.surveys, true);
  assert.equal(config.hasFeatureFlags, true);
  for (const off of ['sessionRecording', 'heatmaps', 'autocaptureExceptions', 'captureDeadClicks', 'capturePerformance', 'productTours', 'conversations']) {
    assert.equal(config[off], false, off);
  }
  assert.deepEqual(config.siteApps, []);

  const script = await getFeed({ url: `/array/${token}/config.js` });
  assert.equal(script.statusCode, 200);
  assert.match(String(script.headers['content-type']), /^application\/javascript/);
  const window: { _POSTHOG_REMOTE_CONFIG?: Record<string, { config: Json; siteApps: unknown[] }> } = {};
  runInNewContext(script.body, { window });
  // Through JSON: the objects come from another realm (other prototypes).
  assert.deepEqual(JSON.parse(JSON.stringify(window._POSTHOG_REMOTE_CONFIG?.[token])), { config, siteApps: [] });

  const project = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'No surveys' } });
  assert.equal(project.statusCode, 201, project.body);
  const empty = await getFeed({ url: `/array/${project.json().api_token}/config` });
  assert.equal(empty.json().surveys, false, 'a project without surveys: posthog-js does not ask for the feed');

  for (const url of ['/array/phc_unknown/config', '/array/phc_unknown/config.js']) {
    const unknown = await getFeed({ url });
    assert.equal(unknown.statusCode, 404, url);
    assert.equal(unknown.json().code, 'not_found');
  }
  const cached = await getFeed({ url: `/array/${token}/config`, headers: { 'if-none-match': String(response.headers.etag) } });
  assert.equal(cached.statusCode, 304);
});
