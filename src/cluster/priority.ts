/**
 * Lowering this process's CPU priority (BACKGROUND_NICE). On Linux a niceness belongs to each
 * thread, and `os.setPriority(0, …)` changes only the calling one: V8's and libuv's threads,
 * started before, would keep theirs. So each thread listed in /proc/self/task is lowered (threads
 * started later inherit the main thread's). Elsewhere the process's priority is set.
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';

function threadIds(): number[] {
  try {
    return readdirSync('/proc/self/task').map(Number).filter(Number.isInteger);
  } catch {
    return [0];
  }
}

/** Lowers every thread to `nice` (never raises one: that may be refused); answers the main thread's niceness after. */
export function lowerPriority(nice: number): number {
  for (const id of threadIds()) {
    try {
      if (os.getPriority(id) < nice) os.setPriority(id, nice);
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return os.getPriority(0);
}
