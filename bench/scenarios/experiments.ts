/**
 * Experiments (issue 19): (1) results of one metric with BENCH_EXPERIMENT_PERSONS exposed persons
 * (1 000 000 by default), cold (`refresh: "force_blocking"`, computed from the state every time)
 * and warm (the 60 s results cache); (2) ingestion through `POST /batch/` with 5 running
 * experiments against the same with the 5 as drafts (the processor then reads the launched list and
 * stops), phases alternating. No peer.
 *
 * Loading (1): the experiment is created and launched through the API; its state, exactly what
 * ingestion would have written, is inserted with SQL (generate_series): one exposure per person
 * (control/test 50/50, 0.5 % seen in both), and for 60 % of them a per-person aggregate of the
 * metric (a count of 1–10 purchases). The results query reads only these two tables, never
 * `events`, so the events a project holds do not enter its cost: it grows with exposed persons.
 */
import { createHash, randomUUID } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import type { BenchConfig } from '../lib/config.ts';
import { expectStatus, request } from '../lib/http.ts';
import { watchCpu } from '../lib/cpu-monitor.ts';
import { samplePgWaits } from '../lib/pg-waits.ts';
import { table } from '../lib/report.ts';
import { projectToken, startBellwether, type BellwetherTarget } from '../targets/bellwether.ts';
import type { Log, Scenario } from './scenario.ts';
import { median } from '../lib/median.ts';

const PROJECT = 1;
const EXPERIMENTS = `/api/projects/${PROJECT}/experiments`;
const QUERY = `/api/environments/${PROJECT}/query/`;
const AIM_COLD_MS = 300;
const AIM_WARM_MS = 30;
const AIM_RATIO = 0.9;

const envInt = (name: string, fallback: number) => {
  const value = Number((process.env[name] ?? '').replace(/_/g, ''));
  return Number.isInteger(value) && value > 0 ? value : fallback;
};

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timed(target: BellwetherTarget, body: string): Promise<number> {
  const started = performance.now();
  const result = await request('POST', `${target.baseUrl}${QUERY}`, target.headers, body);
  if (result.status !== 200) throw new Error(`query answered ${result.status}: ${result.text.slice(0, 300)}`);
  return performance.now() - started;
}

const metric = { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event: 'purchase', math: 'total' } };

async function createExperiment(target: BellwetherTarget, name: string, key: string, launch: boolean): Promise<{ id: number; metric: unknown }> {
  const created = await expectStatus(201, 'POST', `${target.baseUrl}${EXPERIMENTS}/`, target.headers, JSON.stringify({ name, feature_flag_key: key, metrics: [metric, { kind: 'ExperimentMetric', metric_type: 'funnel', series: [{ kind: 'EventsNode', event: 'purchase' }] }] }));
  const body = created.body as { id: number; metrics: unknown[] };
  if (launch) await expectStatus(200, 'POST', `${target.baseUrl}${EXPERIMENTS}/${body.id}/launch/`, target.headers);
  return { id: body.id, metric: body.metrics[0] };
}

async function loadState(databaseUrl: string, experimentId: number, metricUuid: string, persons: number): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = performance.now();
  try {
    await client.query('SELECT setseed(0.19)');
    await client.query(
      `INSERT INTO experiment_exposures (experiment_id, person_id, first_seen_at, first_variant, multiple)
       SELECT $1, md5('bench-person-' || k)::uuid, now() - random() * interval '14 days',
              CASE WHEN k % 2 = 0 THEN 'control' ELSE 'test' END, random() < 0.005
         FROM generate_series(1, $2::int) k`,
      [experimentId, persons],
    );
    await client.query(
      `INSERT INTO experiment_metric_units (experiment_id, metric_uuid, person_id, num, num_count, step, step_at)
       SELECT $1, $2, md5('bench-person-' || k)::uuid, n, n, 1, now()
         FROM (SELECT k, 1 + floor(random() * 10) AS n FROM generate_series(1, $3::int) k WHERE random() < 0.6 + (k % 2) * 0.02) s`,
      [experimentId, metricUuid, persons],
    );
    // The running sums and daily counts ingestion keeps beside those rows, summed the same way.
    await client.query(
      `INSERT INTO experiment_metric_sums (experiment_id, metric_uuid, variant, shard, n, s, q, steps)
       SELECT $1, $2, CASE WHEN x.multiple THEN '$multiple' ELSE x.first_variant END, 0, count(*),
              sum(coalesce(m.num, 0)), sum(coalesce(m.num, 0) ^ 2), '{}'
         FROM experiment_exposures x
         LEFT JOIN experiment_metric_units m ON m.experiment_id = x.experiment_id AND m.metric_uuid = $2 AND m.person_id = x.person_id
        WHERE x.experiment_id = $1 GROUP BY 3`,
      [experimentId, metricUuid],
    );
    await client.query(
      `INSERT INTO experiment_exposure_days (experiment_id, variant, day, shard, n)
       SELECT $1, CASE WHEN multiple THEN '$multiple' ELSE first_variant END, (first_seen_at AT TIME ZONE 'UTC')::date, 0, count(*)
         FROM experiment_exposures WHERE experiment_id = $1 GROUP BY 2, 3`,
      [experimentId],
    );
    await client.query('ANALYZE experiment_exposures; ANALYZE experiment_metric_units');
  } finally {
    await client.end();
  }
  return performance.now() - started;
}

async function resultsPart(config: BenchConfig, log: Log) {
  const persons = envInt('BENCH_EXPERIMENT_PERSONS', 1_000_000);
  let target = await startBellwether(config.adminDatabaseUrl);
  try {
    const { id, metric: stored } = await createExperiment(target, 'Bench results', 'bench-results', true);
    const uuid = (stored as { uuid: string }).uuid;
    log(`experiments: loading the state of ${persons} exposed persons`);
    const loadMs = await loadState(target.databaseUrl, id, uuid, persons);
    target = await target.restart(); // a cold process: nothing cached
    const body = (refresh: string) => JSON.stringify({ query: { kind: 'ExperimentQuery', experiment_id: id, metric: stored }, refresh });
    const first = await request('POST', `${target.baseUrl}${QUERY}`, target.headers, body('force_blocking'));
    if (first.status !== 200) throw new Error(`results answered ${first.status}: ${first.text.slice(0, 300)}`);
    const cold: number[] = [];
    for (let i = 0; i < envInt('BENCH_EXPERIMENT_COLD_RUNS', 15); i++) cold.push(await timed(target, body('force_blocking')));
    const warm: number[] = [];
    const until = Date.now() + 5_000;
    while (Date.now() < until) warm.push(await timed(target, body('blocking')));
    const exposure = JSON.stringify({ query: { kind: 'ExperimentExposureQuery', experiment_id: id }, refresh: 'force_blocking' });
    const exposureCold: number[] = [];
    for (let i = 0; i < 5; i++) exposureCold.push(await timed(target, exposure));
    return { persons, loadMs, cold, warm, exposureCold, sample: first.body, stop: () => target.stop() };
  } catch (error) {
    await target.stop();
    throw error;
  }
}

/** A batch of 100 events over 20 000 persons: 30 % $feature_flag_called of the 5 flags (each person's variant fixed per flag), 10 % purchases, the rest pageviews. */
function batch(token: string, keys: string[]): string {
  const events = Array.from({ length: 100 }, () => {
    const person = `bench-user-${Math.floor(Math.random() * 20_000)}`;
    const roll = Math.random();
    const base = { uuid: randomUUID(), distinct_id: person, timestamp: new Date().toISOString() };
    if (roll < 0.3) {
      const key = keys[Math.floor(Math.random() * keys.length)];
      // A person's variant is fixed per flag, as the flag's hash makes it.
      const variant = createHash('sha1').update(`${key}.${person}`).digest()[0] < 128 ? 'control' : 'test';
      return { ...base, event: '$feature_flag_called', properties: { $feature_flag: key, $feature_flag_response: variant, $lib: 'posthog-node' } };
    }
    if (roll < 0.4) return { ...base, event: 'purchase', properties: { amount: Math.round(Math.random() * 100), $lib: 'posthog-node' } };
    return { ...base, event: '$pageview', properties: { $current_url: 'https://example.com/p', $lib: 'posthog-node' } };
  });
  return JSON.stringify({ api_key: token, batch: events });
}

interface IngestWindow {
  eventsPerSecond: number;
  /** Core-ms per 1000 events stored: the server and its PostgreSQL backends. */
  serverMsPer1000: number | null;
  postgresMsPer1000: number | null;
  otherPercent: number | null;
  /** The server's PostgreSQL connections on average, by state and wait event. */
  pgWaits: Record<string, number> | null;
  /** Rows inserted, updated or deleted per 100 events stored (one batch), by table (PostgreSQL's statistics). */
  rowWritesPerBatch: Record<string, number>;
}

/** Rows written so far, by table: PostgreSQL's cumulative statistics (flushed about every second). */
async function rowWrites(databaseUrl: string): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_stat_force_next_flush()').catch(() => undefined);
    const { rows } = await client.query<{ relname: string; n: string }>('SELECT relname, n_tup_ins + n_tup_upd + n_tup_del AS n FROM pg_stat_user_tables');
    return new Map(rows.map((row) => [row.relname, Number(row.n)]));
  } finally {
    await client.end();
  }
}

async function ingestFor(target: BellwetherTarget, token: string, keys: string[], seconds: number, connections: number): Promise<IngestWindow> {
  let stored = 0;
  const writesBefore = await rowWrites(target.databaseUrl);
  const endWaits = await samplePgWaits(target.databaseUrl);
  const endCpu = watchCpu(target);
  const started = performance.now();
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) {
        const result = await request('POST', `${target.baseUrl}/batch/`, {}, batch(token, keys));
        if (result.status !== 200) throw new Error(`/batch/ answered ${result.status}: ${result.text.slice(0, 300)}`);
        stored += 100;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpu = endCpu();
  const waits = await endWaits();
  await new Promise((resolve) => setTimeout(resolve, 1_100)); // the backends' statistics reach the shared counters
  const writesAfter = await rowWrites(target.databaseUrl);
  const rowWritesPerBatch: Record<string, number> = {};
  for (const [table, n] of writesAfter) {
    const delta = n - (writesBefore.get(table) ?? 0);
    if (delta > 0 && stored > 0) rowWritesPerBatch[table] = Math.round((delta * 100 * 10) / stored) / 10;
  }
  const perThousand = (percent: number) => (cpu && stored > 0 ? Math.round(((percent / 100) * cpu.cores * cpu.seconds * 1e7) / stored) / 10 : null);
  return {
    eventsPerSecond: stored / elapsed,
    serverMsPer1000: cpu ? perThousand(cpu.serverPercent) : null,
    postgresMsPer1000: cpu ? perThousand(cpu.postgresPercent + cpu.postgresSharedPercent) : null,
    otherPercent: cpu ? cpu.foreignPercent : null,
    pgWaits: waits.averageConnections,
    rowWritesPerBatch,
  };
}

/** Which parts run: `BENCH_EXPERIMENT_PARTS=results,ingestion` (both by default). */
function parts(): Set<string> {
  const listed = (process.env.BENCH_EXPERIMENT_PARTS ?? '').split(',').map((part) => part.trim()).filter(Boolean);
  return new Set(listed.length > 0 ? listed : ['results', 'ingestion']);
}

/**
 * Rounds of one window with the 5 experiments as drafts, then one with them running (launched just
 * before, reset just after): each round's ratio compares two neighbouring windows, so a drift of the
 * machine's speed weighs on both alike; the median of the rounds' ratios is the figure.
 */
async function ingestionPart(config: BenchConfig, log: Log) {
  const target = await startBellwether(config.adminDatabaseUrl);
  try {
    const token = await projectToken(target);
    const experiments = [];
    for (let i = 0; i < 5; i++) experiments.push(await createExperiment(target, `Bench ingestion ${i}`, `bench-ingest-${i}`, false));
    const keys = experiments.map((_, i) => `bench-ingest-${i}`);
    const seconds = envInt('BENCH_EXPERIMENT_INGEST_SECONDS', 30);
    const rounds = envInt('BENCH_EXPERIMENT_INGEST_ROUNDS', 3);
    const connections = envInt('BENCH_EXPERIMENT_INGEST_CONNECTIONS', 4);
    const warmup = envInt('BENCH_EXPERIMENT_INGEST_WARMUP', 15);
    // Seconds of unmeasured running ingestion after each launch (0: none). Without it the measured
    // window is a launch burst: most of its $feature_flag_called events are first exposures. With
    // it, most persons are exposed already, as they are once an experiment has run a while.
    const settle = envInt('BENCH_EXPERIMENT_INGEST_SETTLE', 0);
    // Warm-up: most of the 20 000 persons and the definitions exist before the first window.
    await ingestFor(target, token, keys, warmup, connections);
    const without: IngestWindow[] = [];
    const withRunning: IngestWindow[] = [];
    const load: number[][] = [];
    for (let round = 0; round < rounds; round++) {
      log(`experiments: ingestion round ${round + 1}/${rounds}, drafts`);
      load.push(os.loadavg());
      without.push(await ingestFor(target, token, keys, seconds, connections));
      for (const e of experiments) await expectStatus(200, 'POST', `${target.baseUrl}${EXPERIMENTS}/${e.id}/launch/`, target.headers);
      if (settle > 0) {
        log(`experiments: ingestion round ${round + 1}/${rounds}, 5 running, ${settle} s unmeasured`);
        await ingestFor(target, token, keys, settle, connections);
      }
      log(`experiments: ingestion round ${round + 1}/${rounds}, 5 running`);
      withRunning.push(await ingestFor(target, token, keys, seconds, connections));
      for (const e of experiments) await expectStatus(200, 'POST', `${target.baseUrl}${EXPERIMENTS}/${e.id}/reset/`, target.headers);
    }
    load.push(os.loadavg());
    const ratios = without.map((drafts, i) => withRunning[i].eventsPerSecond / drafts.eventsPerSecond);
    const rate = (windows: IngestWindow[]) => windows.map((w) => w.eventsPerSecond);
    return { without, withRunning, ratios, ratio: median(ratios), ratioOfMedians: median(rate(withRunning)) / median(rate(without)), seconds, rounds, connections, warmup, settle, load };
  } finally {
    await target.stop();
  }
}

export const experimentsScenario: Scenario = {
  name: 'experiments',
  async run(config, log) {
    const which = parts();
    const f = (n: number) => n.toFixed(1);
    const aims: Array<{ what: string; pass: boolean }> = [];
    const lines: string[] = [];
    const data: Record<string, unknown> = {};
    let persons: number | null = null;
    if (which.has('results')) {
      const results = await resultsPart(config, log);
      await results.stop();
      persons = results.persons;
      const coldP50 = percentile(results.cold, 50);
      const warmP50 = percentile(results.warm, 50);
      aims.push({ what: `results cold p50 < ${AIM_COLD_MS} ms at ${results.persons} persons`, pass: coldP50 < AIM_COLD_MS });
      aims.push({ what: `results warm p50 < ${AIM_WARM_MS} ms`, pass: warmP50 < AIM_WARM_MS });
      lines.push(
        table([
          ['measure', 'p50 ms', 'p95 ms', 'runs'],
          [`ExperimentQuery cold (${results.persons} exposed)`, f(coldP50), f(percentile(results.cold, 95)), String(results.cold.length)],
          ['ExperimentQuery warm (cached ≤ 60 s)', f(warmP50), f(percentile(results.warm, 95)), String(results.warm.length)],
          ['ExperimentExposureQuery cold', f(percentile(results.exposureCold, 50)), f(percentile(results.exposureCold, 95)), String(results.exposureCold.length)],
        ]),
        `state loaded in ${(results.loadMs / 1000).toFixed(1)} s`,
      );
      Object.assign(data, { cold: results.cold, warm: results.warm.length, coldP50, warmP50, exposureCold: results.exposureCold, sample: results.sample });
    }
    let ingestion: Awaited<ReturnType<typeof ingestionPart>> | null = null;
    if (which.has('ingestion')) {
      ingestion = await ingestionPart(config, log);
      aims.push({ what: `ingestion with 5 running ≥ ${AIM_RATIO}× without (median of the rounds' ratios)`, pass: ingestion.ratio >= AIM_RATIO });
      const rounds = ingestion.without.map((_, i) => `round ${i + 1}`);
      lines.push(
        table([
          ['ingestion (events/s)', ...rounds, 'median'],
          ['5 experiments as drafts', ...ingestion.without.map((w) => f(w.eventsPerSecond)), f(median(ingestion.without.map((w) => w.eventsPerSecond)))],
          ['5 experiments running', ...ingestion.withRunning.map((w) => f(w.eventsPerSecond)), f(median(ingestion.withRunning.map((w) => w.eventsPerSecond)))],
          ['ratio running/drafts', ...ingestion.ratios.map((r) => r.toFixed(3)), ingestion.ratio.toFixed(3)],
        ]),
        ...[...ingestion.without.map((w, i) => ['drafts', i, w] as const), ...ingestion.withRunning.map((w, i) => ['running', i, w] as const)].map(
          ([what, i, w]) =>
            `  ${what} ${i + 1}: core-ms per 1000 events server ${w.serverMsPer1000 ?? '?'}, PostgreSQL ${w.postgresMsPer1000 ?? '?'}; other work ${w.otherPercent ?? '?'}%; ` +
            `connections ${Object.entries(w.pgWaits ?? {}).map(([state, n]) => `${state} ${n}`).join(', ')}; ` +
            `rows written per batch of 100: ${Object.entries(w.rowWritesPerBatch).sort((a, b) => b[1] - a[1]).map(([table, n]) => `${table} ${n}`).join(', ')}`,
        ),
        `${ingestion.seconds} s windows${ingestion.settle > 0 ? ` (running ones after ${ingestion.settle} s unmeasured)` : ' (running ones right after the launch)'}, ${ingestion.connections} connections; ratio of the medians ${ingestion.ratioOfMedians.toFixed(3)}; ` +
          `load average at each round's start and the end: ${ingestion.load.map((l) => l.map((n) => n.toFixed(1)).join('/')).join(', ')}`,
      );
      Object.assign(data, { ingestion, ratio: ingestion.ratio });
    }
    lines.push(...aims.map((aim) => `${aim.pass ? 'PASS' : 'MISS'} ${aim.what}`));
    return {
      file: 'experiments',
      suffix: ingestion && ingestion.settle > 0 ? `settled-${ingestion.settle}s` : undefined,
      settings: { persons, parts: [...which], ingestSeconds: ingestion?.seconds ?? null, ingestRounds: ingestion?.rounds ?? null, ingestConnections: ingestion?.connections ?? null, ingestSettle: ingestion?.settle ?? null },
      report: lines.join('\n'),
      data: { ...data, aims, loadAverage: os.loadavg() },
    };
  },
};
