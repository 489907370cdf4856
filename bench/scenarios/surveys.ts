/**
 * Survey statistics at scale (the survey-responses issue): BENCH_SURVEY_EVENTS (1 000 000) survey
 * events in one project, spread over 20 surveys (one holding about 40 %), then per-survey stats
 * (the large survey and a typical one), global stats and responses_count under autocannon, one
 * request at a time (no queue), and EXPLAIN ANALYZE of the main queries. No peer.
 *
 * Loading: the events go into `events` with one INSERT … SELECT FROM generate_series (with their
 * persons and distinct ids), then survey_responses_rebuild(1), the backfill SQL of migration 010,
 * fills the survey tables exactly as ingestion would; then a few hundred events go through the real
 * POST /batch/ (the processor on top of the loaded rollups, definitions recorded) and a few hundred
 * responses are archived through the API. Aim: per-survey stats and responses_count p50 < 200 ms.
 */
import pg from 'pg';
import { withReadSnapshot } from '../../src/db/read-snapshot.ts';
import { surveyResponseCounts } from '../../src/surveys/responses/counts.ts';
import { activeSurveyIds, allTimeNumbers, clampedWindow, fewEventsOutside, subtractedNumbers } from '../../src/surveys/responses/stats-store.ts';
import type { ReadHandle } from '../../src/db/pool.ts';
import { RESPONSE_READS } from '../../src/surveys/responses/stats.ts';
import type { BenchConfig } from '../lib/config.ts';
import { expectStatus, request } from '../lib/http.ts';
import { measureSettingsOf, runOperation, type OperationResult } from '../lib/measure.ts';
import { table, type Aim } from '../lib/report.ts';
import { startBellwether, type BellwetherTarget } from '../targets/bellwether.ts';
import type { OperationPlan } from '../targets/target.ts';
import type { Log, Scenario } from './scenario.ts';

const PROJECT = 1;
const SURVEYS_URL = `/api/projects/${PROJECT}/surveys`;
const SURVEY_COUNT = 20;
const PERSONS = 250_000;
/** The surveys the plan archives (out of global stats), and the draft (no start_date). */
const ARCHIVED = new Set([17, 18]);
const DRAFT = 19;
const LARGE = 0;
const TYPICAL = 4;
const AIM_MS = 200;

interface PlannedSurvey {
  index: number;
  id: string;
  weight: number;
  partial: boolean;
}

/** 40 % to the large survey, the rest falling off as 1/(i+1). */
function surveyWeights(): number[] {
  const tail = Array.from({ length: SURVEY_COUNT - 1 }, (_, i) => 1 / (i + 2));
  const sum = tail.reduce((a, b) => a + b, 0);
  return [0.4, ...tail.map((w) => (0.6 * w) / sum)];
}

async function createSurveys(target: BellwetherTarget, databaseUrl: string): Promise<PlannedSurvey[]> {
  const weights = surveyWeights();
  const planned: PlannedSurvey[] = [];
  for (let index = 0; index < SURVEY_COUNT; index += 1) {
    const partial = index % 3 === 0;
    const body = {
      name: `Bench survey ${index}`,
      type: 'popover',
      questions: [
        { type: 'rating', question: 'How likely are you to recommend us?', scale: 10 },
        { type: 'open', question: 'What could we do better?' },
      ],
      enable_partial_responses: partial,
    };
    const created = await expectStatus(201, 'POST', `${target.baseUrl}${SURVEYS_URL}/`, target.headers, JSON.stringify(body));
    planned.push({ index, id: (created.body as { id: string }).id, weight: weights[index], partial });
  }
  // Dates the API cannot set (a creation in the past), exactly: created i days after 120 days ago,
  // launched a day later (the draft never), two ended 20 days ago, two archived.
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const survey of planned) {
      await client.query(
        `UPDATE surveys SET created_at = now() - interval '120 days' + $2 * interval '1 day',
                start_date = CASE WHEN $3 THEN NULL ELSE now() - interval '119 days' + $2 * interval '1 day' END,
                end_date = CASE WHEN $2 IN (5, 6) THEN now() - interval '20 days' END,
                archived = $4
          WHERE id = $1`,
        [survey.id, survey.index, survey.index === DRAFT, ARCHIVED.has(survey.index)],
      );
    }
  } finally {
    await client.end();
  }
  return planned;
}

/**
 * Sessions (a person sees a survey once): 30 % answer (on partial-response surveys in 1–3
 * `survey sent` events sharing a submission id, the last one completed), 15 % dismiss (on those
 * surveys 30 % after a partial answer: a partial dismissal), the rest only see it. 5 % of answers
 * are legacy (no submission id). 0.5 % of sessions happen in the hours before the survey started
 * (tests of the survey before launch). Persons are skewed: the first ones come back often.
 */
const LOAD_STATEMENTS = {
  plan: `CREATE TEMP TABLE bench_plan ON COMMIT DROP AS
    SELECT p.id, p.lo, p.hi, p.partial, coalesce(s.start_date, s.created_at) AS from_at, coalesce(s.end_date, now()) AS to_at
      FROM json_to_recordset($1::json) AS p(id uuid, lo float8, hi float8, partial boolean)
      JOIN surveys s ON s.id = p.id`,
  seed: 'SELECT setseed(0.42)',
  persons: `INSERT INTO persons (uuid, project_id, created_at)
    SELECT md5('bench-person-' || k)::uuid, ${PROJECT}, now() - interval '150 days' FROM generate_series(0, ${PERSONS - 1}) k`,
  distinctIds: `INSERT INTO person_distinct_ids (project_id, distinct_id, person_id)
    SELECT ${PROJECT}, 'user-' || k, p.id
      FROM generate_series(0, ${PERSONS - 1}) k JOIN persons p ON p.uuid = md5('bench-person-' || k)::uuid`,
  rolls: `CREATE TEMP TABLE bench_rolls ON COMMIT DROP AS
    SELECT g AS n, random() AS survey_roll, random() AS person_roll, random() AS time_roll, random() AS early_roll,
           random() AS outcome, random() AS parts_roll, random() < 0.05 AS legacy
      FROM generate_series(1, $1::int) g`,
  sessions: `CREATE TEMP TABLE bench_sessions ON COMMIT DROP AS
    SELECT r.n, p.id AS survey_id, p.partial, floor(${PERSONS} * power(r.person_roll, 1.6))::int AS person,
           CASE WHEN r.early_roll < 0.005 THEN p.from_at - r.time_roll * interval '12 hours'
                ELSE p.from_at + (p.to_at - p.from_at) * r.time_roll END AS t,
           r.outcome, r.parts_roll, r.legacy
      FROM bench_rolls r JOIN bench_plan p ON r.survey_roll >= p.lo AND r.survey_roll < p.hi`,
  events: `INSERT INTO events (project_id, uuid, event, distinct_id, person_id, properties, timestamp)
    SELECT ${PROJECT}, gen_random_uuid(), e.event, 'user-' || x.person, md5('bench-person-' || x.person)::uuid,
           jsonb_strip_nulls(jsonb_build_object(
             '$survey_id', x.survey_id::text, '$survey_name', 'Bench survey', '$lib', 'web',
             '$current_url', 'https://app.example.com/settings',
             '$survey_submission_id', CASE WHEN e.event <> 'survey shown' AND NOT x.legacy THEN md5('submission-' || x.n)::uuid::text END,
             '$survey_completed', e.completed,
             '$survey_partially_completed', e.partial_dismissal,
             '$survey_response', CASE WHEN e.event = 'survey sent' THEN (x.n % 11)::text END,
             '$survey_response_1', CASE WHEN e.event = 'survey sent' AND e.completed THEN 'Faster dashboards, please' END)),
           e.at
      FROM bench_sessions x
      CROSS JOIN LATERAL (
        SELECT 'survey shown' AS event, x.t AS at, NULL::boolean AS completed, NULL::boolean AS partial_dismissal
        UNION ALL
        SELECT 'survey sent', x.t + k * interval '20 seconds', k = n.parts, NULL
          FROM (SELECT CASE WHEN x.partial THEN 1 + floor(x.parts_roll * 3)::int ELSE 1 END AS parts) n
          CROSS JOIN generate_series(1, n.parts) k
         WHERE x.outcome < 0.30
        UNION ALL
        SELECT 'survey sent', x.t + interval '20 seconds', false, NULL
         WHERE x.outcome >= 0.30 AND x.outcome < 0.45 AND x.partial AND x.parts_roll < 0.3
        UNION ALL
        SELECT 'survey dismissed', x.t + interval '40 seconds', NULL, x.partial AND x.parts_roll < 0.3
         WHERE x.outcome >= 0.30 AND x.outcome < 0.45
      ) e
     ORDER BY x.n
     LIMIT $1::int`,
};

async function loadEvents(databaseUrl: string, surveys: PlannedSurvey[], count: number, log: Log): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const timings: Record<string, number> = {};
  const timed = async (label: string, work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    timings[label] = Math.round(performance.now() - started);
    log(`surveys: ${label} in ${timings[label]} ms`);
  };
  try {
    let cumulative = 0;
    const ranges = surveys.map((s) => {
      const lo = cumulative;
      cumulative += s.weight;
      return { id: s.id, lo, hi: s.index === SURVEY_COUNT - 1 ? 1.0000001 : cumulative, partial: s.partial };
    });
    await timed(`${count} events (with ${PERSONS} persons) inserted with SQL`, async () => {
      await client.query('BEGIN');
      await client.query(LOAD_STATEMENTS.plan, [JSON.stringify(ranges)]);
      await client.query(LOAD_STATEMENTS.seed);
      await client.query(LOAD_STATEMENTS.persons);
      await client.query(LOAD_STATEMENTS.distinctIds);
      // About 1.6 events per session: enough sessions, then exactly `count` events.
      await client.query(LOAD_STATEMENTS.rolls, [Math.ceil(count * 0.75)]);
      await client.query(LOAD_STATEMENTS.sessions);
      const inserted = await client.query(LOAD_STATEMENTS.events, [count]);
      if (inserted.rowCount !== count) throw new Error(`${inserted.rowCount} events generated, expected ${count}`);
      await client.query('COMMIT');
    });
    await timed('survey tables derived by survey_responses_rebuild(1)', () => client.query(`SELECT survey_responses_rebuild(${PROJECT})`));
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM survey_events WHERE project_id = ${PROJECT}`);
    if (rows[0].n !== count) throw new Error(`survey_events holds ${rows[0].n} rows, expected ${count}`);
  } finally {
    await client.end();
  }
  return timings;
}

async function vacuum(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // This PostgreSQL runs without autovacuum: what it would have done by now (visibility map, statistics).
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}

/** A few hundred events through the real ingestion path, on top of the loaded rollups. */
async function ingestThroughApi(target: BellwetherTarget, token: string, surveys: PlannedSurvey[]): Promise<number> {
  const batch: Record<string, unknown>[] = [];
  const now = Date.now();
  for (let i = 0; i < 300; i += 1) {
    const survey = surveys[i % 3 === 0 ? TYPICAL : LARGE];
    const person = `user-${(i * 7919) % PERSONS}`;
    const at = new Date(now - (300 - i) * 1000).toISOString();
    batch.push({ event: 'survey shown', distinct_id: person, timestamp: at, properties: { $survey_id: survey.id } });
    if (i % 2 === 0) {
      batch.push({
        event: 'survey sent',
        distinct_id: person,
        timestamp: new Date(now - (300 - i) * 1000 + 500).toISOString(),
        properties: { $survey_id: survey.id, $survey_submission_id: crypto.randomUUID(), $survey_response: '9', $survey_completed: true },
      });
    }
  }
  await expectStatus(200, 'POST', `${target.baseUrl}/batch/`, {}, JSON.stringify({ api_key: token, batch }));
  return batch.length;
}

/** Archives responses of the large and the typical survey through the API (what exclude_archived leaves out). */
async function archiveSome(target: BellwetherTarget, databaseUrl: string, surveys: PlannedSurvey[]): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const archived: Record<string, number> = {};
  try {
    for (const [index, count] of [
      [LARGE, 200],
      [TYPICAL, 20],
    ]) {
      const { rows } = await client.query<{ uuid: string }>(
        `SELECT latest_uuid::text AS uuid FROM survey_submissions
          WHERE project_id = $1 AND survey_id = $2
            AND latest_at >= (SELECT coalesce(start_date, created_at) FROM surveys WHERE id = $2)
          ORDER BY md5(latest_uuid::text) LIMIT $3`,
        [PROJECT, surveys[index].id, count],
      );
      for (const { uuid } of rows) {
        await expectStatus(200, 'POST', `${target.baseUrl}${SURVEYS_URL}/${surveys[index].id}/responses/${uuid}/archive/`, target.headers, '{}');
      }
      archived[surveys[index].id] = rows.length;
    }
  } finally {
    await client.end();
  }
  return archived;
}

/** Counts straight from `events` (jsonb), independent of the survey tables: what the answers must show. */
async function expectedFromEvents(databaseUrl: string, surveyId: string): Promise<{ shown: number; responses: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ shown: number; responses: number }>(
      `WITH s AS (SELECT coalesce(start_date, created_at) AS from_at, coalesce(end_date, 'infinity') AS to_at FROM surveys WHERE id = $2),
            e AS (SELECT e.* FROM events e, s WHERE e.project_id = $1 AND e.properties->>'$survey_id' = $2::text
                     AND e.event IN ('survey shown', 'survey sent') AND e.timestamp >= s.from_at AND e.timestamp <= s.to_at)
       SELECT (SELECT count(*) FROM e WHERE event = 'survey shown')::int AS shown,
              (SELECT count(DISTINCT coalesce(nullif(properties->>'$survey_submission_id', ''), uuid::text)) FROM e WHERE event = 'survey sent')::int AS responses`,
      [PROJECT, surveyId],
    );
    return rows[0];
  } finally {
    await client.end();
  }
}

interface StatsAnswer {
  stats: Record<string, { total_count: number }>;
}

function plans(surveys: PlannedSurvey[], expected: Record<string, { shown: number; responses: number }>) {
  const large = surveys[LARGE].id;
  const typical = surveys[TYPICAL].id;
  const statsCheck = (id: string) => (body: unknown) => {
    const answer = body as StatsAnswer;
    const shown = answer?.stats?.['survey shown']?.total_count;
    const sent = answer?.stats?.['survey sent']?.total_count;
    if (shown !== expected[id].shown) return `survey shown total_count ${shown}, expected ${expected[id].shown} (counted in events)`;
    if (sent !== expected[id].responses) return `survey sent total_count ${sent}, expected ${expected[id].responses} (counted in events)`;
    return null;
  };
  const thirtyDaysAgo = new Date(Date.now() - 30 * 86_400_000).toISOString();
  const result: Record<string, { label: string; plan: OperationPlan }> = {
    statsLarge: { label: 'stats, large survey', plan: { method: 'GET', next: () => ({ path: `${SURVEYS_URL}/${large}/stats/` }), check: statsCheck(large) } },
    statsTypical: { label: 'stats, typical survey', plan: { method: 'GET', next: () => ({ path: `${SURVEYS_URL}/${typical}/stats/` }), check: statsCheck(typical) } },
    statsLargeExcluded: {
      label: 'stats, large survey, exclude_archived=true',
      plan: {
        method: 'GET',
        next: () => ({ path: `${SURVEYS_URL}/${large}/stats/?exclude_archived=true` }),
        check: (body) => {
          const sent = (body as StatsAnswer)?.stats?.['survey sent']?.total_count;
          return sent === expected[large].responses - 200 ? null : `survey sent ${sent}, expected ${expected[large].responses - 200}`;
        },
      },
    },
    responsesCount: {
      label: 'responses_count (all surveys)',
      plan: {
        method: 'GET',
        next: () => ({ path: `${SURVEYS_URL}/responses_count/` }),
        check: (body) => {
          const counts = body as Record<string, number>;
          if (counts?.[large] !== expected[large].responses) return `large survey: ${counts?.[large]}, expected ${expected[large].responses}`;
          if (Object.keys(counts).length !== SURVEY_COUNT) return `${Object.keys(counts).length} surveys counted, expected ${SURVEY_COUNT}`;
          return null;
        },
      },
    },
    globalCached: {
      label: 'global stats (kept in memory)',
      plan: { method: 'GET', next: () => ({ path: `${SURVEYS_URL}/stats/` }), check: (body) => ((body as StatsAnswer)?.stats?.['survey shown'] ? null : 'no stats') },
    },
    globalUncached: {
      label: 'global stats, UNCACHED (Cache-Control: no-cache)',
      plan: {
        method: 'GET',
        headers: { 'cache-control': 'no-cache' },
        next: () => ({ path: `${SURVEYS_URL}/stats/` }),
        check: (body) => ((body as StatsAnswer)?.stats?.['survey shown'] ? null : 'no stats'),
      },
    },
    statsLarge30Days: {
      label: 'stats, large survey, last 30 days (date_from)',
      plan: { method: 'GET', next: () => ({ path: `${SURVEYS_URL}/${large}/stats/?date_from=${thirtyDaysAgo}` }) },
    },
  };
  return result;
}

/** Sequential requests, nothing else in flight: the service time without a queue. */
async function singleRequestTimes(target: BellwetherTarget, plan: OperationPlan, count: number): Promise<{ p50: number; min: number; max: number }> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const shape = plan.next();
    const started = performance.now();
    const result = await request(plan.method, `${target.baseUrl}${shape.path}`, { ...target.headers, ...plan.headers });
    times.push(performance.now() - started);
    if (result.status !== 200) throw new Error(`${shape.path} answered ${result.status}: ${result.text.slice(0, 300)}`);
  }
  times.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return { p50: round(times[Math.floor((times.length - 1) / 2)]), min: round(times[0]), max: round(times[times.length - 1]) };
}

interface ExplainedQuery {
  label: string;
  executionMs: number | null;
  plan: string;
}

/** A read handle that runs EXPLAIN (ANALYZE, BUFFERS) of each statement and keeps the plan (answering no rows). */
function explaining(client: ReadHandle, label: string, into: ExplainedQuery[]): ReadHandle {
  const query = async (sql: string, params?: unknown[]) => {
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    const execution = /Execution Time: ([\d.]+) ms/.exec(plan);
    into.push({ label, executionMs: execution ? Number(execution[1]) : null, plan });
    return { rows: [], rowCount: 0 };
  };
  return { query } as unknown as ReadHandle;
}

/** The main statements of per-survey stats (large survey), responses_count and global stats, as production runs them. */
async function explainMainQueries(databaseUrl: string, surveys: PlannedSurvey[]): Promise<ExplainedQuery[]> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  let plansOut: ExplainedQuery[] = [];
  try {
    // Twice, the second kept: the first pays for a cold catalog cache on this new connection.
    for (let round = 0; round < 2; round += 1) {
      plansOut = [];
      await withReadSnapshot(pool, async (client) => {
        const large = surveys[LARGE].id;
        const window = await clampedWindow(client, PROJECT, large, null, null);
        await fewEventsOutside(explaining(client, 'stats (large): events outside the window, counted up to half', plansOut), PROJECT, large, window);
        await subtractedNumbers(explaining(client, 'stats (large): totals minus what lies outside', plansOut), PROJECT, large, window, []);
        await surveyResponseCounts(explaining(client, 'responses_count (all surveys)', plansOut), PROJECT, { excludeArchived: false });
        await allTimeNumbers(explaining(client, 'global stats (computed, not cached)', plansOut), PROJECT, await activeSurveyIds(client, PROJECT));
      }, RESPONSE_READS);
    }
  } finally {
    await pool.end();
  }
  return plansOut;
}

const ORDER = ['statsLarge', 'statsTypical', 'statsLargeExcluded', 'responsesCount', 'globalCached', 'globalUncached', 'statsLarge30Days'] as const;

export const surveysScenario: Scenario = {
  name: 'surveys',
  async run(config: BenchConfig, log: Log) {
    const settings = measureSettingsOf(config);
    const eventCount = config.surveyEvents;
    log(`surveys: ${eventCount} survey events over ${SURVEY_COUNT} surveys, ${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s per request`);
    let target = await startBellwether(config.adminDatabaseUrl);
    try {
      log(`${target.name} is up at ${target.baseUrl} (pid ${target.pid}, database ${target.databaseName})`);
      const surveys = await createSurveys(target, target.databaseUrl);
      const loadTimings = await loadEvents(target.databaseUrl, surveys, eventCount, log);
      const project = await expectStatus(200, 'GET', `${target.baseUrl}/api/projects/${PROJECT}/`, target.headers);
      const ingested = await ingestThroughApi(target, (project.body as { api_token: string }).api_token, surveys);
      log(`surveys: ${ingested} more events through POST /batch/`);
      const archived = await archiveSome(target, target.databaseUrl, surveys);
      await vacuum(target.databaseUrl);
      // A fresh process, as after a deploy: nothing in memory yet.
      target = await target.restart();
      const expected: Record<string, { shown: number; responses: number }> = {};
      for (const index of [LARGE, TYPICAL]) expected[surveys[index].id] = await expectedFromEvents(target.databaseUrl, surveys[index].id);
      log(`surveys: large survey ${JSON.stringify(expected[surveys[LARGE].id])}, typical ${JSON.stringify(expected[surveys[TYPICAL].id])} (counted in events)`);

      const operations = plans(surveys, expected);
      const single: Record<string, { p50: number; min: number; max: number }> = {};
      for (const name of ORDER) {
        await singleRequestTimes(target, operations[name].plan, 3);
        single[name] = await singleRequestTimes(target, operations[name].plan, 15);
        log(`surveys: ${operations[name].label}, one request at a time: p50 ${single[name].p50} ms (min ${single[name].min}, max ${single[name].max})`);
      }
      const results: Record<string, OperationResult> = {};
      for (const name of ORDER) results[name] = await runOperation(target, operations[name].plan, settings, name, log);
      const explained = await explainMainQueries(target.databaseUrl, surveys);
      await target.stop();

      const rows = [['request', 'req/s', `p50 / p99 (${settings.connections} conn.)`, 'one at a time p50', 'server core-ms/req', 'PostgreSQL core-ms/req']];
      for (const name of ORDER) {
        const r = results[name];
        const coreMs = (percent: number) => (r.cpu && r.totalRequests ? ((percent / 100) * r.cpu.cores * r.cpu.seconds * 1000) / r.totalRequests : Number.NaN);
        rows.push([
          operations[name].label,
          `${Math.round(r.requestsPerSecond).toLocaleString('en-US')}${r.disturbed ? ' *' : ''}`,
          `${r.latencyMs.p50} / ${r.latencyMs.p99} ms`,
          `${single[name].p50} ms`,
          r.cpu ? coreMs(r.cpu.serverPercent).toFixed(2) : '-',
          r.cpu ? coreMs(r.cpu.postgresPercent + r.cpu.postgresSharedPercent).toFixed(2) : '-',
        ]);
      }
      const aims: Aim[] = (['statsLarge', 'statsTypical', 'responsesCount'] as const).map((name) => ({
        aim: `${operations[name].label}: p50 < ${AIM_MS} ms with ${eventCount.toLocaleString('en-US')} survey events (${settings.connections} connections; one at a time)`,
        pass: results[name].latencyMs.p50 < AIM_MS && single[name].p50 < AIM_MS,
        actual: `${results[name].latencyMs.p50} ms; ${single[name].p50} ms`,
      }));
      const verdict = (aim: Aim) => (aim.pass === null ? 'n/a ' : aim.pass ? 'PASS' : 'MISS');
      const foreign = Object.values(results).map((r) => r.cpu?.foreignPercent ?? 0);
      const report =
        `Survey statistics (${eventCount.toLocaleString('en-US')} survey events in one project over ${SURVEY_COUNT} surveys, loaded with SQL then ` +
        `derived by the backfill SQL; autocannon; no peer)\n${table(rows)}\n` +
        'Per-survey stats and responses_count are never cached (every request reads the database); only global stats keep answers in memory, ' +
        'checked against a fingerprint on every request; the UNCACHED row computes them on every request.\n' +
        `Other work on the machine during the measurements: up to ${Math.max(...foreign)}% of the cores` +
        `${Object.values(results).some((r) => r.disturbed) ? ' (* disturbed even after retries)' : ''}.\n` +
        `EXPLAIN ANALYZE (quiet, after the load): ${explained.map((e) => `${e.label} ${e.executionMs} ms`).join('; ')}.\n\n` +
        `Aims:\n${aims.map((aim) => `  ${verdict(aim)}  ${aim.aim}: ${aim.actual}`).join('\n')}\n`;
      return {
        file: 'surveys',
        settings: { ...settings, surveyEvents: eventCount, surveys: SURVEY_COUNT, persons: PERSONS },
        report,
        data: {
          loading: { method: 'INSERT … SELECT FROM generate_series into events, persons, person_distinct_ids; survey_responses_rebuild(1); then POST /batch/', timingsMs: loadTimings, ingestedThroughApi: ingested, archivedThroughApi: archived },
          surveys: surveys.map((s) => ({ index: s.index, id: s.id, share: Math.round(s.weight * 1000) / 10, partialResponses: s.partial, archived: ARCHIVED.has(s.index), draft: s.index === DRAFT })),
          expected,
          requests: Object.fromEntries(ORDER.map((name) => [name, { label: operations[name].label, path: operations[name].plan.next().path }])),
          oneAtATime: single,
          results,
          explain: explained,
          aims,
        },
      };
    } finally {
      await target.stop();
    }
  },
};
