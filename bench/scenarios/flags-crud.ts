import type { BenchConfig } from '../lib/config.ts';
import { runOperation, type MeasureSettings, type OperationResult } from '../lib/measure.ts';
import { formatReport, judgeAims, type CrudResults } from '../lib/report.ts';
import { startUnleash } from '../peers/unleash.ts';
import { startBellwether } from '../targets/bellwether.ts';
import type { Operation, Target } from '../targets/target.ts';
import type { Log, Scenario } from './scenario.ts';

export type { OperationResult } from '../lib/measure.ts';

/**
 * Reads first, over exactly the seeded flags; creates last, so that every list run pages over
 * the same number of flags.
 */
export const RUN_ORDER: Operation[] = ['list', 'retrieve', 'patch', 'create'];

export interface ScenarioSettings extends MeasureSettings {
  seedFlags: number;
}

/**
 * Every server is up and seeded before the first measurement; then, operation by operation,
 * each server gets its warm-up and measurement in turn (who goes first alternates), so that a
 * slow drift of the machine's speed weighs on all of them alike.
 */
export async function runFlagsCrud(
  targets: Target[],
  settings: ScenarioSettings,
  log: Log,
  operations: readonly Operation[] = RUN_ORDER,
): Promise<Map<Target, CrudResults>> {
  const results = new Map<Target, CrudResults>(targets.map((target) => [target, {}]));
  for (const target of targets) {
    log(`${target.name}: seeding ${settings.seedFlags} flags`);
    await target.seed(settings.seedFlags);
  }
  for (const [index, operation] of RUN_ORDER.filter((operation) => operations.includes(operation)).entries()) {
    const turn = index % 2 === 0 ? targets : [...targets].reverse();
    for (const target of turn) {
      try {
        results.get(target)![operation] = await runOperation(target, target.plan(operation), settings, operation, log);
      } catch (error) {
        const output = target.output();
        if (output) (error as Error).message += `\n  ${target.name}'s last output:\n${output}`;
        throw error;
      }
    }
  }
  return results;
}

async function started(start: () => Promise<Target>, log: Log): Promise<Target> {
  const target = await start();
  log(`${target.name} is up at ${target.baseUrl} (pid ${target.pid}, database ${target.databaseName})`);
  return target;
}

/**
 * The flag CRUD comparison: Bellwether beside Unleash (unless BENCH_SKIP_PEER) and, with
 * BENCH_BASELINE_DIR, beside another checkout of Bellwether (a before/after in one run).
 */
export const flagsCrudScenario: Scenario = {
  name: 'flags',
  async run(config: BenchConfig, log: Log) {
    log(
      `flags: ${config.connections} connections, ${config.warmupSeconds} s warm-up + ${config.durationSeconds} s per operation, ` +
        `${config.seedFlags} seeded flags${config.skipPeer ? ', Unleash skipped' : ''}`,
    );
    // Both servers stay up for the whole scenario; an idle one's own work shows as "other work".
    const ours = await started(() => startBellwether(config.adminDatabaseUrl), log);
    const baselineDir = process.env.BENCH_BASELINE_DIR?.trim() || null;
    const baseline = baselineDir
      ? await started(async () => ({ ...(await startBellwether(config.adminDatabaseUrl, { root: baselineDir })), name: 'Bellwether baseline' }), log)
      : null;
    const peer = config.skipPeer ? null : await started(() => startUnleash(config.adminDatabaseUrl, log), log);
    const targets = [ours, ...(baseline ? [baseline] : []), ...(peer ? [peer] : [])];
    const measured = await runFlagsCrud(targets, config, log, config.flagOperations);
    for (const target of targets) {
      if (!target) continue;
      await target.stop();
      log(`${target.name} stopped, its database dropped`);
    }
    const bellwether = { notes: ours.notes, results: measured.get(ours)! };
    const unleash = peer ? { notes: peer.notes, results: measured.get(peer)! } : null;
    const before = baseline ? { dir: baselineDir, notes: baseline.notes, results: measured.get(baseline)! } : null;
    const aims = judgeAims(bellwether.results, unleash?.results ?? null);
    return {
      file: 'flags-crud',
      suffix: config.skipPeer ? 'bellwether-only' : '',
      settings: {
        durationSeconds: config.durationSeconds,
        warmupSeconds: config.warmupSeconds,
        connections: config.connections,
        seedFlags: config.seedFlags,
        skipPeer: config.skipPeer,
        maxForeignCpuPercent: config.maxForeignCpuPercent,
        retries: config.retries,
        operations: config.flagOperations,
        baselineDir,
      },
      report: formatReport(bellwether.results, unleash?.results ?? null, aims, before?.results ?? null),
      data: { targets: { bellwether, unleash, ...(before ? { baseline: before } : {}) }, aims },
    };
  },
};
