/**
 * Reading survey responses at scale (issue 10): one survey with BENCH_RESPONSE_EVENTS (1 000 000)
 * `survey sent` events, then the first page of GET {id}/responses/ (aim: p50 < 50 ms), a page deep
 * in the list by cursor, filters, searches, the console's results page in headless Chromium (aim:
 * ready < 1.5 s), and the CSV export of every response (aims: ≥ 50 000 rows/s, the server's memory
 * flat while it streams). No peer.
 *
 * Loading: one INSERT … SELECT FROM generate_series (persons and distinct ids too), then
 * survey_responses_rebuild(1) derives the survey tables as ingestion would; 10 % of submissions
 * are partial (two events, the first `$survey_completed: false`); 100 responses are archived
 * through the API; VACUUM ANALYZE (this PostgreSQL runs without autovacuum); a fresh process.
 */
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { encodeCursor } from '../../src/surveys/responses/cursor.ts';
import type { BenchConfig } from '../lib/config.ts';
import { expectStatus, request } from '../lib/http.ts';
import { measureSettingsOf, runOperation, type OperationResult } from '../lib/measure.ts';
import { table, type Aim } from '../lib/report.ts';
import { startBellwether, type BellwetherTarget } from '../targets/bellwether.ts';
import type { OperationPlan } from '../targets/target.ts';
import type { Log, Scenario } from './scenario.ts';
import { median } from '../lib/median.ts';

const PROJECT = 1;
const SURVEYS_URL = `/api/projects/${PROJECT}/surveys`;
const PERSONS = 200_000;
const PAGE_AIM_MS = 50;
const CSV_AIM_ROWS_PER_SECOND = 50_000;
const RESULTS_PAGE_AIM_MS = 1_500;
const BROWSER_RUNS = 5;
const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/dist');
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

const QUESTIONS = [
  { id: 'q-rating', type: 'rating', question: 'How likely are you to recommend us?', scale: 10, display: 'number' },
  { id: 'q-open', type: 'open', question: 'What could we do better?' },
  { id: 'q-choice', type: 'multiple_choice', question: 'Which features do you use?', choices: ['Flags', 'Surveys', 'Events', 'Other'], hasOpenChoice: true },
];

async function withClient<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** One survey, created 60 days ago and launched the next day (SQL: the API cannot date the past). */
async function createSurvey(target: BellwetherTarget): Promise<string> {
  const body = { name: 'Bench responses survey', type: 'popover', questions: QUESTIONS, enable_partial_responses: true };
  const created = await expectStatus(201, 'POST', `${target.baseUrl}${SURVEYS_URL}/`, target.headers, JSON.stringify(body));
  const id = (created.body as { id: string }).id;
  await withClient(target.databaseUrl, (client) =>
    client.query(`UPDATE surveys SET created_at = now() - interval '60 days', start_date = now() - interval '59 days' WHERE id = $1`, [id]),
  );
  return id;
}

const LOAD = {
  seed: 'SELECT setseed(0.17)',
  persons: `INSERT INTO persons (uuid, project_id, properties, created_at)
    SELECT md5('bench-person-' || k)::uuid, ${PROJECT}, jsonb_build_object('email', 'user' || k || '@example.com', 'plan', CASE WHEN k % 5 = 0 THEN 'pro' ELSE 'free' END),
           now() - interval '90 days'
      FROM generate_series(0, ${PERSONS - 1}) k`,
  distinctIds: `INSERT INTO person_distinct_ids (project_id, distinct_id, person_id)
    SELECT ${PROJECT}, 'user-' || k, p.id FROM generate_series(0, ${PERSONS - 1}) k JOIN persons p ON p.uuid = md5('bench-person-' || k)::uuid`,
  // Event g: submission g / 1 for most; every tenth submission has a partial first event (g and g+1 share it).
  events: `INSERT INTO events (project_id, uuid, event, distinct_id, person_id, properties, timestamp)
    SELECT ${PROJECT}, gen_random_uuid(), 'survey sent', 'user-' || (s % ${PERSONS}), md5('bench-person-' || (s % ${PERSONS}))::uuid,
           jsonb_strip_nulls(jsonb_build_object(
             '$survey_id', $2::text, '$survey_name', 'Bench responses survey', '$lib', 'web', '$current_url', 'https://app.example.com/settings',
             '$survey_submission_id', md5('submission-' || s)::uuid::text,
             '$survey_completed', NOT first_of_two,
             '$survey_response_q-rating', (s % 11)::text,
             '$survey_response_q-open', CASE WHEN first_of_two THEN NULL
                                             ELSE (ARRAY['Faster dashboards, please', 'More "exports", fewer clicks', 'Dark mode', 'Nothing — it is great',
                                                         '=SUM(A1:A9) is what I type all day', 'Better docs for the API'])[1 + s % 6] || ' #' || s END,
             '$survey_response_q-choice', CASE WHEN first_of_two THEN NULL
                                               ELSE jsonb_build_array((ARRAY['Flags', 'Surveys', 'Events'])[1 + s % 3], 'Other: ' || (s % 97)) END)),
           now() - interval '58 days' + (g::float8 / $1::float8) * interval '57 days'
      FROM generate_series(1, $1::int) g
      CROSS JOIN LATERAL (SELECT CASE WHEN g % 20 = 1 THEN g + 1 ELSE g END AS s, g % 20 = 1 AS first_of_two) x`,
};

async function load(target: BellwetherTarget, surveyId: string, count: number, log: Log): Promise<Record<string, number>> {
  const timings: Record<string, number> = {};
  await withClient(target.databaseUrl, async (client) => {
    const timed = async (label: string, work: () => Promise<unknown>) => {
      const started = performance.now();
      await work();
      timings[label] = Math.round(performance.now() - started);
      log(`survey-responses: ${label} in ${timings[label]} ms`);
    };
    await timed(`${count} survey sent events (with ${PERSONS} persons) inserted with SQL`, async () => {
      await client.query('BEGIN');
      await client.query(LOAD.seed);
      await client.query(LOAD.persons);
      await client.query(LOAD.distinctIds);
      const inserted = await client.query(LOAD.events, [count, surveyId]);
      if (inserted.rowCount !== count) throw new Error(`${inserted.rowCount} events inserted, expected ${count}`);
      await client.query('COMMIT');
    });
    await timed('survey tables derived by survey_responses_rebuild(1)', () => client.query(`SELECT survey_responses_rebuild(${PROJECT})`));
  });
  return timings;
}

async function archiveSome(target: BellwetherTarget, surveyId: string, count: number): Promise<number> {
  const uuids = await withClient(target.databaseUrl, async (client) => {
    const { rows } = await client.query<{ uuid: string }>(
      'SELECT latest_uuid::text AS uuid FROM survey_submissions WHERE project_id = $1 AND survey_id = $2 ORDER BY latest_at DESC LIMIT $3',
      [PROJECT, surveyId, count * 3],
    );
    return rows.filter((_, i) => i % 3 === 0).map((r) => r.uuid);
  });
  for (const uuid of uuids) await expectStatus(200, 'POST', `${target.baseUrl}${SURVEYS_URL}/${surveyId}/responses/${uuid}/archive/`, target.headers, '{}');
  return uuids.length;
}

/** The responses of the survey's window, counted from the rollup (one per submission, latest inside the window). */
async function expectedResponses(target: BellwetherTarget, surveyId: string): Promise<number> {
  return withClient(target.databaseUrl, async (client) => {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM survey_submissions WHERE project_id = $1 AND survey_id = $2
          AND latest_at >= (SELECT start_date FROM surveys WHERE id = $2)`,
      [PROJECT, surveyId],
    );
    return rows[0].n;
  });
}

/** A cursor to the middle of the list (the position of the response at rank `rank`, newest first). */
async function cursorAt(target: BellwetherTarget, surveyId: string, rank: number): Promise<string> {
  return withClient(target.databaseUrl, async (client) => {
    const { rows } = await client.query<{ micros: string; uuid: string }>(
      `SELECT (extract(epoch FROM timestamp) * 1000000)::bigint::text AS micros, uuid::text AS uuid FROM survey_events
        WHERE project_id = $1 AND survey_id = $2 AND kind = 3 ORDER BY timestamp DESC, uuid DESC OFFSET $3 LIMIT 1`,
      [PROJECT, surveyId, rank],
    );
    return encodeCursor({ position: { micros: BigInt(rows[0].micros), uuid: rows[0].uuid }, direction: 'next' });
  });
}

function pagePlan(path: string, expectedRows: number | null): OperationPlan {
  return {
    method: 'GET',
    next: () => ({ path }),
    check: (body) => {
      const page = body as { results?: unknown[] } | null;
      if (!page || !Array.isArray(page.results)) return 'no results';
      if (expectedRows !== null && page.results.length !== expectedRows) return `${page.results.length} rows, expected ${expectedRows}`;
      return null;
    },
  };
}

/** Sequential requests, nothing else in flight: the service time without a queue. */
async function oneAtATime(target: BellwetherTarget, plan: OperationPlan, count: number): Promise<{ p50: number; min: number; max: number }> {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    const result = await request('GET', `${target.baseUrl}${plan.next().path}`, target.headers);
    times.push(performance.now() - started);
    if (result.status !== 200) throw new Error(`${plan.next().path} answered ${result.status}: ${result.text.slice(0, 300)}`);
    const problem = plan.check?.(result.body);
    if (problem) throw new Error(`${plan.next().path}: ${problem}`);
  }
  times.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return { p50: round(times[Math.floor((times.length - 1) / 2)]), min: round(times[0]), max: round(times[times.length - 1]) };
}

function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

interface CsvRun {
  rows: number;
  bytes: number;
  seconds: number;
  rowsPerSecond: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssSamplesMb: number[];
}

/** Downloads the whole CSV, counting rows as they arrive (nothing kept), sampling the server's RSS. */
async function exportCsv(target: BellwetherTarget, surveyId: string): Promise<CsvRun> {
  const pid = target.pid as number;
  const before = rssKb(pid);
  const samples: number[] = [];
  let peak = before;
  const sampler = setInterval(() => {
    const kb = rssKb(pid);
    peak = Math.max(peak, kb);
    samples.push(Math.round(kb / 1024));
  }, 250);
  const started = performance.now();
  try {
    const { rows, bytes } = await new Promise<{ rows: number; bytes: number }>((resolve, reject) => {
      const url = new URL(`${target.baseUrl}${SURVEYS_URL}/${surveyId}/responses/?format=csv`);
      http
        .get(url, { headers: target.headers }, (res) => {
          if (res.statusCode !== 200) reject(new Error(`CSV answered ${res.statusCode}`));
          let newlines = 0;
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) newlines += 1;
          });
          res.on('end', () => resolve({ rows: newlines - 1, bytes: size }));
          res.on('error', reject);
        })
        .on('error', reject);
    });
    const seconds = (performance.now() - started) / 1000;
    return {
      rows,
      bytes,
      seconds: Math.round(seconds * 100) / 100,
      rowsPerSecond: Math.round(rows / seconds),
      rssBeforeMb: Math.round(before / 1024),
      rssPeakMb: Math.round(peak / 1024),
      rssSamplesMb: samples.filter((_, i) => i % 4 === 0),
    };
  } finally {
    clearInterval(sampler);
  }
}


/**
 * The console's results page of the survey in headless Chromium: navigation start → the summary's
 * tiles, the responses-over-time card and every question's card on screen, no spinner left (the
 * statistics and the latest 2 000 responses loaded, the charts drawn). Cold (a fresh browser
 * context) and warm (the same page visited again), BROWSER_RUNS times each.
 */
async function resultsPageTimings(target: BellwetherTarget, surveyId: string): Promise<{ cold: number[]; warm: number[] }> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  const timings: { cold: number[]; warm: number[] } = { cold: [], warm: [] };
  try {
    for (let run = 0; run < BROWSER_RUNS; run += 1) {
      const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
      await context.setExtraHTTPHeaders(target.headers);
      const page = await context.newPage();
      for (const kind of ['cold', 'warm'] as const) {
        await page.goto(`${target.baseUrl}/surveys/${surveyId}`, { waitUntil: 'commit' });
        await page.waitForFunction(
          (questionCount) => {
            const titles = [...document.querySelectorAll('.card-title')].map((title) => title.textContent ?? '');
            return (
              document.querySelectorAll('.stat-tile-value').length > 0 &&
              titles.includes('Responses over time') &&
              titles.length >= questionCount + 2 &&
              document.querySelector('.card canvas, .card svg') !== null &&
              document.querySelector('.spinner') === null
            );
          },
          QUESTIONS.length,
          { timeout: 60_000, polling: 'raf' },
        );
        timings[kind].push(Math.round(await page.evaluate(() => performance.now())));
      }
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return timings;
}

export const surveyResponsesScenario: Scenario = {
  name: 'survey-responses',
  async run(config: BenchConfig, log: Log) {
    const settings = measureSettingsOf(config);
    const count = config.responseEvents;
    if (!existsSync(path.join(DIST, 'index.html'))) throw new Error('web/dist is missing: run `npm run build:console` first');
    const loadAverage = { atStart: os.loadavg().map((v) => Math.round(v * 100) / 100) };
    log(`survey-responses: ${count} survey sent events in one survey (load average ${loadAverage.atStart.join(' ')})`);
    let target = await startBellwether(config.adminDatabaseUrl);
    try {
      const surveyId = await createSurvey(target);
      const timings = await load(target, surveyId, count, log);
      const archived = await archiveSome(target, surveyId, 100);
      await withClient(target.databaseUrl, (client) => client.query('VACUUM ANALYZE'));
      target = await target.restart();
      const responses = await expectedResponses(target, surveyId);
      log(`survey-responses: ${responses} responses in the survey's window (counted in survey_submissions), ${archived} archived`);

      const base = `${SURVEYS_URL}/${surveyId}/responses/`;
      const deep = await cursorAt(target, surveyId, Math.floor(count / 2));
      const plans: Record<string, { label: string; plan: OperationPlan }> = {
        first: { label: 'first page (100)', plan: pagePlan(`${base}?limit=100`, 100) },
        firstExcluded: { label: 'first page, exclude_archived=true', plan: pagePlan(`${base}?limit=100&exclude_archived=true`, 100) },
        deep: { label: 'a page half-way down (cursor)', plan: pagePlan(`${base}?limit=100&cursor=${deep}`, 100) },
        last7Days: { label: 'first page, date_from=-7d', plan: pagePlan(`${base}?limit=100&date_from=-7d`, 100) },
        searchCommon: { label: 'search, a common word ("dark")', plan: pagePlan(`${base}?limit=100&search=dark`, 100) },
      };
      // A search that matches almost nothing: its few matches are found through the trigram index.
      const rarePath = `${base}?limit=100&search=%23777777`;
      const rareStarted = performance.now();
      const rare = await request('GET', `${target.baseUrl}${rarePath}`, target.headers);
      const searchRare = { path: rarePath, status: rare.status, ms: Math.round(performance.now() - rareStarted) };
      log(`survey-responses: search matching one response: ${searchRare.status} in ${searchRare.ms} ms`);
      const single: Record<string, { p50: number; min: number; max: number }> = {};
      for (const [name, { label, plan }] of Object.entries(plans)) {
        await oneAtATime(target, plan, 2);
        single[name] = await oneAtATime(target, plan, 15);
        log(`survey-responses: ${label}, one request at a time: p50 ${single[name].p50} ms (min ${single[name].min}, max ${single[name].max})`);
      }
      const loaded: Record<string, OperationResult> = {};
      for (const name of ['first', 'deep'] as const) loaded[name] = await runOperation(target, plans[name].plan, settings, name, log);

      const loadBeforeBrowser = os.loadavg().map((v) => Math.round(v * 100) / 100);
      const resultsPage = await resultsPageTimings(target, surveyId);
      const resultsCold = median(resultsPage.cold);
      const resultsWarm = median(resultsPage.warm);
      log(
        `survey-responses: console results page ready in ${resultsCold} ms cold, ${resultsWarm} ms warm (medians of ${BROWSER_RUNS}; ` +
          `cold ${resultsPage.cold.join(', ')}; load average ${loadBeforeBrowser.join(' ')})`,
      );

      const loadBeforeCsv = os.loadavg().map((v) => Math.round(v * 100) / 100);
      const csv = await exportCsv(target, surveyId);
      const loadAfterCsv = os.loadavg().map((v) => Math.round(v * 100) / 100);
      log(
        `survey-responses: CSV ${csv.rows} rows, ${(csv.bytes / 2 ** 20).toFixed(1)} MiB in ${csv.seconds} s: ${csv.rowsPerSecond} rows/s; ` +
          `server RSS ${csv.rssBeforeMb} MB before, peak ${csv.rssPeakMb} MB (load average ${loadBeforeCsv.join(' ')})`,
      );
      if (csv.rows !== responses) throw new Error(`the CSV holds ${csv.rows} rows, expected ${responses}`);
      await target.stop();

      const rows = [['request', 'one at a time p50 (min–max)', `autocannon p50 / p99 (${settings.connections} conn.)`, 'req/s']];
      for (const [name, { label }] of Object.entries(plans)) {
        const r = loaded[name as 'first' | 'deep'] as OperationResult | undefined;
        rows.push([label, `${single[name].p50} ms (${single[name].min}–${single[name].max})`, r ? `${r.latencyMs.p50} / ${r.latencyMs.p99} ms` : '-', r ? String(Math.round(r.requestsPerSecond)) : '-']);
      }
      const aims: Aim[] = [
        { aim: `first page of responses p50 < ${PAGE_AIM_MS} ms with ${count.toLocaleString('en-US')} response events (one at a time)`, pass: single.first.p50 < PAGE_AIM_MS, actual: `${single.first.p50} ms` },
        { aim: `console results page ready < ${RESULTS_PAGE_AIM_MS} ms (cold, median of ${BROWSER_RUNS})`, pass: resultsCold < RESULTS_PAGE_AIM_MS, actual: `${resultsCold} ms (warm ${resultsWarm} ms)` },
        { aim: `CSV export ≥ ${CSV_AIM_ROWS_PER_SECOND.toLocaleString('en-US')} rows/s`, pass: csv.rowsPerSecond >= CSV_AIM_ROWS_PER_SECOND, actual: `${csv.rowsPerSecond.toLocaleString('en-US')} rows/s` },
        { aim: 'CSV export with flat memory (server RSS peak within 100 MB of its start)', pass: csv.rssPeakMb - csv.rssBeforeMb < 100, actual: `${csv.rssBeforeMb} → ${csv.rssPeakMb} MB` },
      ];
      const verdict = (aim: Aim) => (aim.pass === null ? 'n/a ' : aim.pass ? 'PASS' : 'MISS');
      const report =
        `Survey responses list and CSV (${count.toLocaleString('en-US')} survey sent events in one survey, ${responses.toLocaleString('en-US')} responses; no peer)\n` +
        `${table(rows)}\n` +
        `Search matching one response (through the trigram index): ${searchRare.status} in ${searchRare.ms} ms.\n` +
        `Console results page (Chromium, navigation start → tiles, charts and question cards, no spinner): ${resultsCold} ms cold, ${resultsWarm} ms warm (medians of ${BROWSER_RUNS}; load average ${loadBeforeBrowser.join(' ')}).\n` +
        `CSV: ${csv.rows.toLocaleString('en-US')} rows, ${(csv.bytes / 2 ** 20).toFixed(1)} MiB in ${csv.seconds} s (${csv.rowsPerSecond.toLocaleString('en-US')} rows/s); ` +
        `server RSS ${csv.rssBeforeMb} MB before, peak ${csv.rssPeakMb} MB.\n` +
        `Load average (1, 5, 15 min): ${loadAverage.atStart.join(' ')} at start, ${loadBeforeCsv.join(' ')} before the CSV, ${loadAfterCsv.join(' ')} after.\n\n` +
        `Aims:\n${aims.map((aim) => `  ${verdict(aim)}  ${aim.aim}: ${aim.actual}`).join('\n')}\n`;
      return {
        file: 'survey-responses',
        settings: { ...settings, responseEvents: count, persons: PERSONS },
        report,
        data: {
          loading: { timingsMs: timings, archivedThroughApi: archived, responses },
          loadAverage: { atStart: loadAverage.atStart, beforeCsv: loadBeforeCsv, afterCsv: loadAfterCsv },
          requests: Object.fromEntries(Object.entries(plans).map(([name, { label, plan }]) => [name, { label, path: plan.next().path }])),
          oneAtATime: single,
          searchRare,
          resultsPage: { ...resultsPage, medianColdMs: resultsCold, medianWarmMs: resultsWarm, loadAverage: loadBeforeBrowser },
          underLoad: loaded,
          csv,
          aims,
        },
      };
    } finally {
      await target.stop();
    }
  },
};
