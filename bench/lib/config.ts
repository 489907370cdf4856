/** Benchmark settings, all from the environment so that CI and people can shorten a run. */
export interface BenchConfig {
  /** The machine's PostgreSQL, connected to an admin database; bench databases are created beside it. */
  adminDatabaseUrl: string;
  /** Seconds of measurement per scenario and server. */
  durationSeconds: number;
  /** Seconds of unmeasured load before each measurement. */
  warmupSeconds: number;
  connections: number;
  /** Flags created on each server before list, retrieve and patch are measured. */
  seedFlags: number;
  /** Run Bellwether only. */
  skipPeer: boolean;
  /** A measurement during which other processes used more than this share of the machine (%) is repeated. */
  maxForeignCpuPercent: number;
  /** Repeats of a disturbed measurement before it is kept and marked. */
  retries: number;
}

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

export function loadBenchConfig(): BenchConfig {
  return {
    adminDatabaseUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test',
    durationSeconds: positiveNumber('BENCH_DURATION', 10),
    warmupSeconds: positiveNumber('BENCH_WARMUP', 2),
    connections: Math.round(positiveNumber('BENCH_CONNECTIONS', 10)),
    seedFlags: Math.round(positiveNumber('BENCH_SEED_FLAGS', 200)),
    skipPeer: ['1', 'true', 'yes'].includes((process.env.BENCH_SKIP_PEER ?? '').toLowerCase()),
    maxForeignCpuPercent: positiveNumber('BENCH_MAX_FOREIGN_CPU', 10),
    retries: Math.round(process.env.BENCH_RETRIES === '0' ? 0 : positiveNumber('BENCH_RETRIES', 3)),
  };
}
