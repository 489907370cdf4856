/**
 * `npm run bench`: the scenarios chosen by BENCH_SCENARIOS (flags, ingestion, definitions, sdk, surveys,
 * hostile-regex, flag-scale; all by default), each on a fresh Bellwether and database:
 * - flags: the feature flag API under load, Bellwether beside Unleash 7.5.1;
 * - ingestion: events/s stored through POST /batch/, sent by posthog-node itself, then by autocannon;
 * - definitions: the event definitions list and search over 10 000 definitions;
 * - sdk: flag definitions and /flags?v=2 beside Unleash 7.5.1, then with 10 to 10 000 flags;
 * - surveys: survey stats and responses_count with 1 000 000 survey events in one project;
 * - survey-responses: the responses list and its CSV export with 1 000 000 responses in one survey;
 * - hostile-regex: stored patterns against hostile values, with /_health probed beside;
 * - flag-scale: /flags?v=2 with 10 000 and 25 000 flags in one project, /_health and /_readyz probed beside;
 * - console: the web console's first-load JavaScript (gzipped) and the flag list with 1 000 flags in Chromium;
 * - workers: /flags/definitions and /flags?v=2 with WORKERS=1 vs 2;
 * - flag-cpu: server CPU per flag evaluated with 1 000 mixed flags, and the engine alone;
 * - three-process: /flags throughput and flag-change propagation while another process ingests $feature_flag_called;
 * - playground: every one of 1 000 flags for a made-up person (POST …/feature_flags/playground/);
 * - webhooks: 10 000 flag changes to three endpoints (fine, 2 s, 500): none lost, duplicates, retry gaps, PATCH p99 during vs idle.
 * - read-your-writes: flag list/retrieve with WORKERS=2 beside a baseline checkout, and the SDK endpoints' lag across workers and nodes.
 * Settings: see bench/lib/config.ts and bench/README.md.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCleanups } from './lib/cleanup.ts';
import { loadBenchConfig } from './lib/config.ts';
import { writeResults } from './lib/report.ts';
import { consoleScenario } from './scenarios/console.ts';
import { eventDefinitionsScenario } from './scenarios/event-definitions.ts';
import { experimentsScenario } from './scenarios/experiments.ts';
import { flagCpuScenario } from './scenarios/flag-cpu.ts';
import { flagScaleScenario } from './scenarios/flag-scale.ts';
import { flagsCrudScenario } from './scenarios/flags-crud.ts';
import { hotScenario } from './scenarios/hot.ts';
import { playgroundScenario } from './scenarios/playground.ts';
import { hostileRegexScenario } from './scenarios/hostile-regex.ts';
import { ingestionScenario } from './scenarios/ingestion.ts';
import { sdkScenario } from './scenarios/sdk.ts';
import { surveyResponsesScenario } from './scenarios/survey-responses.ts';
import { surveysScenario } from './scenarios/surveys.ts';
import { threeProcessScenario } from './scenarios/three-process.ts';
import { webhooksScenario } from './scenarios/webhooks.ts';
import { workersScenario } from './scenarios/workers.ts';
import { readYourWritesScenario } from './scenarios/read-your-writes.ts';
import type { Scenario, ScenarioName } from './scenarios/scenario.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const log = (line: string) => process.stdout.write(`[bench] ${line}\n`);

const SCENARIOS: Record<ScenarioName, Scenario> = {
  flags: flagsCrudScenario,
  ingestion: ingestionScenario,
  definitions: eventDefinitionsScenario,
  sdk: sdkScenario,
  surveys: surveysScenario,
  'survey-responses': surveyResponsesScenario,
  'hostile-regex': hostileRegexScenario,
  'flag-scale': flagScaleScenario,
  console: consoleScenario,
  workers: workersScenario,
  'flag-cpu': flagCpuScenario,
  'three-process': threeProcessScenario,
  webhooks: webhooksScenario,
  'read-your-writes': readYourWritesScenario,
  experiments: experimentsScenario,
  hot: hotScenario,
  playground: playgroundScenario,
};

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the servers and dropping the bench databases`);
    void runCleanups(log).finally(() => process.exit(130));
  });
}

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: path.resolve(BENCH_DIR, '..'), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

const machine = () => ({
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? 'unknown',
  memoryGb: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  loadAverageAtStart: os.loadavg(),
  note: 'the load tool runs on the same cores as the server under test',
});

const reports: string[] = [];
const failures: string[] = [];
try {
  const config = loadBenchConfig();
  log(`scenarios: ${config.scenarios.join(', ')}`);
  for (const name of config.scenarios) {
    const startedAt = new Date().toISOString();
    const machineAtStart = machine();
    try {
      const outcome = await SCENARIOS[name].run(config, log);
      const file = writeResults(
        path.join(BENCH_DIR, 'results'),
        outcome.file,
        {
          benchmark: outcome.file,
          startedAt,
          finishedAt: new Date().toISOString(),
          settings: outcome.settings,
          machine: machineAtStart,
          git: { commit: git(['rev-parse', 'HEAD']), uncommittedChanges: (git(['status', '--porcelain', '--', 'src']) ?? '') !== '' },
          ...outcome.data,
        },
        outcome.suffix,
      );
      reports.push(`${outcome.report}\n(${path.relative(process.cwd(), file)})\n`);
      log(`${name}: results written to ${path.relative(process.cwd(), file)}`);
    } catch (error) {
      const failure = error as Error;
      failures.push(`${name}: ${failure.message ?? String(error)}`);
      process.stderr.write(`\n[bench] ${name} FAILED: ${failure.message ?? String(error)}\n`);
      if (process.env.BENCH_DEBUG) process.stderr.write(`${failure.stack}\n`);
      await runCleanups(log); // this scenario's servers and databases; the next one starts afresh
    }
  }
} catch (error) {
  failures.push((error as Error).message ?? String(error));
  process.stderr.write(`\n[bench] FAILED: ${(error as Error).message ?? String(error)}\n`);
} finally {
  await runCleanups(log);
}
if (reports.length) process.stdout.write(`\n${reports.join('\n')}`);
if (failures.length) {
  process.exitCode = 1;
  process.stderr.write(`\n[bench] failed:\n${failures.map((f) => `  ${f}`).join('\n')}\n`);
}
