import { runLoad, type LoadSettings, type Measurement } from '../lib/autocannon.ts';
import { waitForQuiet, watchCpu, type CpuShare } from '../lib/cpu-monitor.ts';
import { request } from '../lib/http.ts';
import type { Operation, OperationPlan, Target } from '../targets/target.ts';

/**
 * Reads first, over exactly the seeded flags; creates last, so that every list run pages over
 * the same number of flags.
 */
export const RUN_ORDER: Operation[] = ['list', 'retrieve', 'patch', 'create'];

export interface ScenarioSettings extends LoadSettings {
  warmupSeconds: number;
  seedFlags: number;
  /** A measurement during which other work used more of the machine than this (%) is repeated. */
  maxForeignCpuPercent: number;
  /** How many times a disturbed measurement is repeated before it is kept, marked. */
  retries: number;
}

export interface OperationResult extends Measurement {
  /** Who used the cores during the measurement; null off Linux. */
  cpu: CpuShare | null;
  attempts: number;
  /** Other work used more than the allowed share even on the last attempt. */
  disturbed: boolean;
}

export type CrudResults = Record<Operation, OperationResult>;

/** One request outside the load: it must succeed and have the expected shape. */
async function probe(target: Target, plan: OperationPlan, operation: Operation): Promise<void> {
  const shape = plan.next();
  const result = await request(plan.method, `${target.baseUrl}${shape.path}`, target.headers, shape.body);
  if (result.status < 200 || result.status > 299) {
    throw new Error(`${target.name} ${operation}: ${plan.method} ${shape.path} answered ${result.status}: ${result.text.slice(0, 500)}`);
  }
  const problem = plan.check?.(result.body) ?? null;
  if (problem) throw new Error(`${target.name} ${operation}: ${problem}`);
}

async function measure(
  target: Target,
  plan: OperationPlan,
  settings: ScenarioSettings,
  label: string,
  log: (line: string) => void,
): Promise<OperationResult> {
  for (let attempt = 1; ; attempt += 1) {
    const endWatch = watchCpu(target);
    const measurement = await runLoad(target, plan, settings, label);
    const cpu = endWatch();
    const disturbed = cpu !== null && cpu.foreignPercent > settings.maxForeignCpuPercent;
    if (!disturbed || attempt > settings.retries) return { ...measurement, cpu, attempts: attempt, disturbed };
    log(`${label}: other work used ${cpu.foreignPercent}% of the machine during the run; waiting for quiet, then again`);
    await waitForQuiet(target, settings.maxForeignCpuPercent, 120_000);
    await runLoad(target, plan, { connections: settings.connections, durationSeconds: settings.warmupSeconds }, `${label} (warm-up)`);
  }
}

/**
 * Every server is up and seeded before the first measurement; then, operation by operation,
 * each server gets its warm-up and measurement in turn (who goes first alternates), so that a
 * slow drift of the machine's speed weighs on all of them alike.
 */
export async function runFlagsCrud(
  targets: Target[],
  settings: ScenarioSettings,
  log: (line: string) => void,
): Promise<Map<Target, CrudResults>> {
  const results = new Map<Target, Partial<CrudResults>>(targets.map((target) => [target, {}]));
  for (const target of targets) {
    log(`${target.name}: seeding ${settings.seedFlags} flags`);
    await target.seed(settings.seedFlags);
  }
  for (const [index, operation] of RUN_ORDER.entries()) {
    const turn = index % 2 === 0 ? targets : [...targets].reverse();
    for (const target of turn) {
      try {
        results.get(target)![operation] = await runOperation(target, operation, settings, log);
      } catch (error) {
        const output = target.output();
        if (output) (error as Error).message += `\n  ${target.name}'s last output:\n${output}`;
        throw error;
      }
    }
  }
  return results as Map<Target, CrudResults>;
}

async function runOperation(
  target: Target,
  operation: Operation,
  settings: ScenarioSettings,
  log: (line: string) => void,
): Promise<OperationResult> {
  const plan = target.plan(operation);
  await probe(target, plan, operation);
  const label = `${target.name} ${operation}`;
  await runLoad(target, plan, { connections: settings.connections, durationSeconds: settings.warmupSeconds }, `${label} (warm-up)`);
  const result = await measure(target, plan, settings, label, log);
  const cpu = result.cpu ? `; cores: ours ${result.cpu.oursPercent}%, other work ${result.cpu.foreignPercent}%` : '';
  log(
    `${label}: ${result.requestsPerSecond} req/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms ` +
      `(${result.totalRequests} requests, ${result.bytesPerResponse} B each${cpu})${result.disturbed ? ' DISTURBED' : ''}`,
  );
  return result;
}
