import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Tells where the cores went during a measurement (Linux /proc only) and whether other work
 * shared them: the machine's busy CPU time against that of "our" processes (this bench with its
 * load generator, the server under test, and the PostgreSQL backends serving its database), of
 * PostgreSQL's own shared processes (WAL writer, checkpointer, background writer: they work for
 * every database of the cluster, mostly for our writes during a write benchmark), and the rest.
 */
export interface CpuShare {
  seconds: number;
  /** Busy time of the whole machine, in % of all cores. */
  machinePercent: number;
  /** Our processes (bench + server + its PostgreSQL backends), in % of all cores. */
  oursPercent: number;
  /** Everything else (other processes, other databases' backends), in % of all cores. */
  foreignPercent: number;
  /** This process: the load generator (autocannon or the posthog-node clients), in % of all cores. */
  benchPercent: number;
  /** The server under test (with its worker processes). */
  serverPercent: number;
  /** The PostgreSQL backends (and autovacuum workers) of the server's database. */
  postgresPercent: number;
  /** PostgreSQL's shared processes of the same cluster (WAL writer, checkpointer, background writer, …). */
  postgresSharedPercent: number;
  /** Number of cores, to turn percentages into core-seconds. */
  cores: number;
}

export interface Ours {
  /** The server under test. */
  pid: number;
  /** Its database: PostgreSQL backends serving it count as ours. */
  databaseName: string;
}

const round = (value: number) => Math.round(value * 10) / 10;

const SHARED_POSTGRES = /^postgres: (?:[^:]+: )?(checkpointer|background writer|walwriter|autovacuum launcher|logical replication launcher|archiver|stats collector|walsender|walreceiver)\b/;

function machineTicks(): { busy: number; total: number; cores: number } | null {
  try {
    const lines = readFileSync('/proc/stat', 'utf8').split('\n');
    const [user, nice, system, idle, iowait, irq, softirq, steal] = lines[0].trim().split(/\s+/).slice(1).map(Number);
    const busy = user + nice + system + irq + softirq + (steal || 0);
    const cores = lines.filter((line) => /^cpu\d+ /.test(line)).length || 1;
    return { busy, total: busy + idle + iowait, cores };
  } catch {
    return null;
  }
}

function processStat(pid: number): { ticks: number; ppid: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ticks: Number(fields[11]) + Number(fields[12]), ppid: Number(fields[1]) }; // utime + stime, ppid
  } catch {
    return { ticks: 0, ppid: -1 };
  }
}

/** CPU time (user + system) a process has used so far, in seconds (Linux /proc; clock ticks of 10 ms). */
export function processCpuSeconds(pid: number): number {
  return processStat(pid).ticks / 100;
}

type Role = 'bench' | 'server' | 'postgres' | 'postgresShared';

/** Our processes by role; PostgreSQL's shared processes only of the cluster serving our database. */
function ourPids(ours: Ours): Map<number, Role> {
  const roles = new Map<number, Role>([
    [process.pid, 'bench'],
    [ours.pid, 'server'],
  ]);
  const shared: Array<{ pid: number; ppid: number }> = [];
  const postmasters = new Set<number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const pid = Number(entry);
      if (!cmdline.startsWith('postgres:')) {
        // The server's own children (its workers with WORKERS > 1) are the server too.
        if (pid !== ours.pid && processStat(pid).ppid === ours.pid) roles.set(pid, 'server');
        continue;
      }
      if (cmdline.includes(ours.databaseName)) {
        roles.set(pid, 'postgres');
        postmasters.add(processStat(pid).ppid);
      } else if (SHARED_POSTGRES.test(cmdline)) {
        shared.push({ pid, ppid: processStat(pid).ppid });
      }
    } catch {
      // gone meanwhile
    }
  }
  for (const { pid, ppid } of shared) if (postmasters.has(ppid)) roles.set(pid, 'postgresShared');
  return roles;
}

/** Starts watching; the returned function ends the window and reports, or null off Linux. */
export function watchCpu(ours: Ours): () => CpuShare | null {
  const startMachine = machineTicks();
  if (!startMachine) return () => null;
  const startedAt = process.hrtime.bigint();
  const before = new Map([...ourPids(ours).keys()].map((pid) => [pid, processStat(pid).ticks]));
  return () => {
    const endMachine = machineTicks();
    if (!endMachine) return null;
    const byRole: Record<Role, number> = { bench: 0, server: 0, postgres: 0, postgresShared: 0 };
    for (const [pid, role] of ourPids(ours)) byRole[role] += Math.max(0, processStat(pid).ticks - (before.get(pid) ?? 0));
    const total = endMachine.total - startMachine.total;
    const busy = endMachine.busy - startMachine.busy;
    if (total <= 0) return null;
    const oursTicks = byRole.bench + byRole.server + byRole.postgres;
    const share = (ticks: number) => round((100 * ticks) / total);
    return {
      seconds: round(Number(process.hrtime.bigint() - startedAt) / 1e9),
      machinePercent: share(busy),
      oursPercent: share(Math.min(oursTicks, busy)),
      foreignPercent: share(Math.max(0, busy - oursTicks - byRole.postgresShared)),
      benchPercent: share(byRole.bench),
      serverPercent: share(byRole.server),
      postgresPercent: share(byRole.postgres),
      postgresSharedPercent: share(byRole.postgresShared),
      cores: endMachine.cores,
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

/** "bench 31% · server 42% · postgres 18% (+3% shared) · other 2%" of all cores. */
export function describeCpu(cpu: CpuShare | null): string {
  if (!cpu) return 'cores not watched (no /proc)';
  return (
    `bench ${cpu.benchPercent}% · server ${cpu.serverPercent}% · postgres ${cpu.postgresPercent}%` +
    (cpu.postgresSharedPercent ? ` (+${cpu.postgresSharedPercent}% shared)` : '') +
    ` · other ${cpu.foreignPercent}% of ${cpu.cores} cores`
  );
}
