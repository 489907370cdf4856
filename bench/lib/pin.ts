/**
 * Pinning load generators to cores (`taskset`, util-linux): a CPU list such as `0` or `0-1`.
 * Processes started after `pinProcess(process.pid, …)` inherit the pinning unless started through `pinned`.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';

const CPU_LIST = /^\d+(-\d+)?(,\d+(-\d+)?)*$/;

function checked(cpus: string): string {
  if (!CPU_LIST.test(cpus)) throw new Error(`a CPU list such as "0" or "0-1" was expected, got "${cpus}"`);
  return cpus;
}

/** Pins every thread of a running process (autocannon runs in this process's threads). */
export function pinProcess(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', checked(cpus), String(pid)], { stdio: 'ignore' });
}

/** The command and arguments that start `command` pinned to `cpus` (as is when `cpus` is null). */
export function pinned(cpus: string | null, command: string, args: string[]): [string, string[]] {
  return cpus === null ? [command, args] : ['taskset', ['-c', checked(cpus), command, ...args]];
}

/** Runs `work` with this process pinned to `cpus` (null: not pinned), then gives it every core again. */
export async function withLoadGeneratorPinned<T>(cpus: string | null, work: () => Promise<T>): Promise<T> {
  if (cpus === null) return work();
  pinProcess(process.pid, cpus);
  try {
    return await work();
  } finally {
    pinProcess(process.pid, `0-${os.cpus().length - 1}`);
  }
}
