import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Tells whether other work shared the cores during a measurement (Linux /proc only): the
 * machine's busy CPU time minus the time of "our" processes (this bench with its load
 * generator, the server under test, and the PostgreSQL backends serving its database).
 */
export interface CpuShare {
  seconds: number;
  /** Busy time of the whole machine, in % of all cores. */
  machinePercent: number;
  /** Our processes, in % of all cores. */
  oursPercent: number;
  /** Everything else (other processes, PostgreSQL's own background work), in % of all cores. */
  foreignPercent: number;
}

export interface Ours {
  /** The server under test. */
  pid: number;
  /** Its database: PostgreSQL backends serving it count as ours. */
  databaseName: string;
}

const round = (value: number) => Math.round(value * 10) / 10;

function machineTicks(): { busy: number; total: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    const busy = user + nice + system + irq + softirq + (steal || 0);
    return { busy, total: busy + idle + iowait };
  } catch {
    return null;
  }
}

function processTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return 0;
  }
}

function ourPids(ours: Ours): number[] {
  const pids = [process.pid, ours.pid];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.startsWith('postgres:') && cmdline.includes(ours.databaseName)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Starts watching; the returned function ends the window and reports, or null off Linux. */
export function watchCpu(ours: Ours): () => CpuShare | null {
  const startMachine = machineTicks();
  if (!startMachine) return () => null;
  const startedAt = process.hrtime.bigint();
  const before = new Map(ourPids(ours).map((pid) => [pid, processTicks(pid)]));
  return () => {
    const endMachine = machineTicks();
    if (!endMachine) return null;
    let oursTicks = 0;
    for (const pid of ourPids(ours)) oursTicks += processTicks(pid) - (before.get(pid) ?? 0);
    const total = endMachine.total - startMachine.total;
    const busy = endMachine.busy - startMachine.busy;
    if (total <= 0) return null;
    const share = (ticks: number) => round((100 * ticks) / total);
    return {
      seconds: round(Number(process.hrtime.bigint() - startedAt) / 1e9),
      machinePercent: share(busy),
      oursPercent: share(Math.min(oursTicks, busy)),
      foreignPercent: share(Math.max(0, busy - oursTicks)),
    };
  };
}

/** Waits (up to `maxWaitMs`) until other work uses less than `thresholdPercent` of the machine for 3 s. */
export async function waitForQuiet(ours: Ours, thresholdPercent: number, maxWaitMs: number): Promise<boolean> {
  const deadline = Date.now() + maxWaitMs;
  while (Date.now() < deadline) {
    const end = watchCpu(ours);
    await sleep(3000);
    const share = end();
    if (!share || share.foreignPercent < thresholdPercent) return true;
  }
  return false;
}
