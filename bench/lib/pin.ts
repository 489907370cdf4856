/**
 * Pinning load generators to cores (`taskset`, util-linux): a CPU list such as `0` or `0-1`.
 * Processes started after `pinProcess(process.pid, …)` inherit the pinning unless started through `pinned`.
 */
import { execFileSync } from 'node:child_process';

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
