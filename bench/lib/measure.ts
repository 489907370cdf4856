import { runLoad, type LoadSettings, type Measurement } from './autocannon.ts';
import { describeCpu, waitForQuiet, watchCpu, type CpuShare } from './cpu-monitor.ts';
import { request } from './http.ts';
import type { OperationPlan, Target } from '../targets/target.ts';
import type { BenchConfig } from './config.ts';

/** What a measurement needs of a server: where to send the load, whose cores to watch. */
export type MeasuredTarget = Pick<Target, 'name' | 'baseUrl' | 'headers' | 'pid' | 'databaseName'>;

export interface MeasureSettings extends LoadSettings {
  warmupSeconds: number;
  /** A measurement during which other work used more of the machine than this (%) is repeated. */
  maxForeignCpuPercent: number;
  /** How many times a disturbed measurement is repeated before it is kept, marked. */
  retries: number;
}

/** The measurement settings every scenario takes from the run's configuration. */
export function measureSettingsOf(config: BenchConfig): MeasureSettings {
  return {
    connections: config.connections,
    durationSeconds: config.durationSeconds,
    warmupSeconds: config.warmupSeconds,
    maxForeignCpuPercent: config.maxForeignCpuPercent,
    retries: config.retries,
  };
}

export interface OperationResult extends Measurement {
  /** Who used the cores during the measurement; null off Linux. */
  cpu: CpuShare | null;
  attempts: number;
  /** Other work used more than the allowed share even on the last attempt. */
  disturbed: boolean;
}

/** One request outside the load: it must succeed and have the expected shape. */
export async function probe(target: MeasuredTarget, plan: OperationPlan, label: string): Promise<void> {
  const shape = plan.next();
  const result = await request(plan.method, `${target.baseUrl}${shape.path}`, { ...target.headers, ...plan.headers }, shape.body);
  if (result.status < 200 || result.status > 299) {
    throw new Error(`${target.name} ${label}: ${plan.method} ${shape.path} answered ${result.status}: ${result.text.slice(0, 500)}`);
  }
  const problem = plan.check?.(result.body) ?? null;
  if (problem) throw new Error(`${target.name} ${label}: ${problem}`);
}

/**
 * Repeats an attempt while other work took more than the allowed share of the cores (after
 * waiting for a quiet moment), up to `retries` times; the last attempt is kept either way.
 */
export async function untilUndisturbed<T extends { cpu: CpuShare | null }>(
  target: MeasuredTarget,
  settings: Pick<MeasureSettings, 'maxForeignCpuPercent' | 'retries'>,
  label: string,
  log: (line: string) => void,
  attempt: (isRetry: boolean) => Promise<T>,
): Promise<T & { attempts: number; disturbed: boolean }> {
  for (let n = 1; ; n += 1) {
    const result = await attempt(n > 1);
    const disturbed = result.cpu !== null && result.cpu.foreignPercent > settings.maxForeignCpuPercent;
    if (!disturbed || n > settings.retries) return { ...result, attempts: n, disturbed };
    log(`${label}: other work used ${result.cpu!.foreignPercent}% of the machine during the run; waiting for quiet, then again`);
    await waitForQuiet(target, settings.maxForeignCpuPercent, 120_000);
  }
}

/** The measured autocannon run (warm-up already done), repeated while disturbed. */
export async function measure(
  target: MeasuredTarget,
  plan: OperationPlan,
  settings: MeasureSettings,
  label: string,
  log: (line: string) => void,
): Promise<OperationResult> {
  return untilUndisturbed(target, settings, label, log, async (isRetry) => {
    if (isRetry) {
      await runLoad(target, plan, { ...settings, durationSeconds: settings.warmupSeconds }, `${label} (warm-up)`);
    }
    const endWatch = watchCpu(target);
    const measurement = await runLoad(target, plan, settings, label);
    return { ...measurement, cpu: endWatch() };
  });
}

/** Probe, warm-up, measurement, and a log line. */
export async function runOperation(
  target: MeasuredTarget,
  plan: OperationPlan,
  settings: MeasureSettings,
  operation: string,
  log: (line: string) => void,
): Promise<OperationResult> {
  await probe(target, plan, operation);
  const label = `${target.name} ${operation}`;
  await runLoad(target, plan, { ...settings, durationSeconds: settings.warmupSeconds }, `${label} (warm-up)`);
  const result = await measure(target, plan, settings, label, log);
  log(
    `${label}: ${result.requestsPerSecond} req/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms ` +
      `(${result.totalRequests} requests, ${result.bytesPerResponse} B each; cores: ${describeCpu(result.cpu)})` +
      `${result.disturbed ? ' DISTURBED' : ''}`,
  );
  return result;
}
