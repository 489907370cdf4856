/**
 * `npm run bench`: the feature flag API under load, Bellwether beside Unleash 7.5.1.
 * Settings: BENCH_DURATION, BENCH_WARMUP (s), BENCH_CONNECTIONS, BENCH_SEED_FLAGS,
 * BENCH_DATABASE_URL, BENCH_SKIP_PEER=1 (Bellwether only), BENCH_MAX_FOREIGN_CPU, BENCH_RETRIES.
 * See bench/README.md.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCleanups } from './lib/cleanup.ts';
import { loadBenchConfig } from './lib/config.ts';
import { formatReport, judgeAims, writeResults } from './lib/report.ts';
import { startUnleash } from './peers/unleash.ts';
import { runFlagsCrud } from './scenarios/flags-crud.ts';
import { startBellwether } from './targets/bellwether.ts';
import type { Target } from './targets/target.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const log = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const config = loadBenchConfig();

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the servers and dropping the bench databases`);
    void runCleanups(log).finally(() => process.exit(130));
  });
}

async function started(start: () => Promise<Target>): Promise<Target> {
  const target = await start();
  log(`${target.name} is up at ${target.baseUrl} (pid ${target.pid}, database ${target.databaseName})`);
  return target;
}

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: path.resolve(BENCH_DIR, '..'), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

try {
  log(
    `${config.connections} connections, ${config.warmupSeconds} s warm-up + ${config.durationSeconds} s per operation, ` +
      `${config.seedFlags} seeded flags${config.skipPeer ? ', Unleash skipped' : ''}`,
  );
  const startedAt = new Date().toISOString();
  const loadAtStart = os.loadavg();
  // Both servers stay up for the whole run; an idle one's own work shows as "other work".
  const ours = await started(() => startBellwether(config.adminDatabaseUrl));
  const peer = config.skipPeer ? null : await started(() => startUnleash(config.adminDatabaseUrl, log));
  const measured = await runFlagsCrud(peer ? [ours, peer] : [ours], config, log);
  for (const target of [ours, peer]) {
    if (!target) continue;
    await target.stop();
    log(`${target.name} stopped, its database dropped`);
  }
  const bellwether = { notes: ours.notes, results: measured.get(ours)! };
  const unleash = peer ? { notes: peer.notes, results: measured.get(peer)! } : null;
  const aims = judgeAims(bellwether.results, unleash?.results ?? null);

  process.stdout.write(`\n${formatReport(bellwether.results, unleash?.results ?? null, aims)}`);
  const file = writeResults(
    path.join(BENCH_DIR, 'results'),
    'flags-crud',
    {
      benchmark: 'flags-crud',
      startedAt,
      finishedAt: new Date().toISOString(),
      settings: { ...config, adminDatabaseUrl: undefined },
      machine: {
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        memoryGb: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
        loadAverageAtStart: loadAtStart,
        note: 'the load tool runs on the same cores as the server under test',
      },
      git: { commit: git(['rev-parse', 'HEAD']), uncommittedChanges: (git(['status', '--porcelain', '--', 'src']) ?? '') !== '' },
      targets: { bellwether, unleash },
      aims,
    },
    config.skipPeer ? 'bellwether-only' : '',
  );
  log(`results written to ${path.relative(process.cwd(), file)}`);
} catch (error) {
  process.exitCode = 1;
  const failure = error as Error;
  process.stderr.write(`\n[bench] FAILED: ${failure.message ?? String(error)}\n`);
  if (process.env.BENCH_DEBUG) process.stderr.write(`${failure.stack}\n`);
} finally {
  await runCleanups(log);
}
