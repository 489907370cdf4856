import { SCENARIO_NAMES, type ScenarioName } from './scenario-names.ts';
import { OPERATIONS, type Operation } from '../targets/target.ts';

/** Benchmark settings, all from the environment so that CI and people can shorten a run. */
export interface BenchConfig {
  /** Which scenarios run (BENCH_SCENARIOS, comma-separated; all by default), in SCENARIO_NAMES order. */
  scenarios: ScenarioName[];
  /** The machine's PostgreSQL, connected to an admin database; bench databases are created beside it. */
  adminDatabaseUrl: string;
  /** Seconds of measurement per operation and server (flags, definitions). */
  durationSeconds: number;
  /** Seconds of unmeasured load before each measurement (flags, definitions). */
  warmupSeconds: number;
  /** autocannon connections (flags, definitions). */
  connections: number;
  /** Flags created on each server before list, retrieve and patch are measured (flags), and before the SDK pairs (sdk). */
  seedFlags: number;
  /** The flag operations measured (flags; BENCH_FLAG_OPERATIONS, comma-separated; all by default). */
  flagOperations: Operation[];
  /** Run Bellwether only (flags). */
  skipPeer: boolean;
  /** A measurement during which other processes used more than this share of the machine (%) is repeated. */
  maxForeignCpuPercent: number;
  /** Repeats of a disturbed measurement before it is kept and marked. */
  retries: number;
  /** posthog-node clients capturing in the bench process (ingestion). */
  ingestClients: number;
  /** autocannon connections posting pre-built batches (ingestion). */
  ingestConnections: number;
  /** Seconds measured per ingestion variant. */
  ingestDurationSeconds: number;
  /** Seconds of unmeasured ingestion before each measurement. */
  ingestWarmupSeconds: number;
  /** Distinct ids the generated events spread over (ingestion). */
  ingestDistinctIds: number;
  /** Fraction of generated events that are survey events of one hot survey (BENCH_INGEST_SURVEY_SHARE, 0–1). */
  ingestSurveyShare: number;
  /** Event definitions inserted before the definitions list is measured. */
  seedDefinitions: number;
  /** Flag counts of the SDK scale curve (sdk; Bellwether only). */
  sdkScale: number[];
  /** Connections of the `/flags?v=2` latency run at 1 000 flags (sdk). */
  sdkHighConnections: number;
  /** Survey events loaded into the project before stats are measured (surveys; BENCH_SURVEY_EVENTS). */
  surveyEvents: number;
  /** `survey sent` events loaded into one survey before its responses are read (survey-responses; BENCH_RESPONSE_EVENTS). */
  responseEvents: number;
  /** Requests sent one after another per hostile value (hostile-regex; BENCH_HOSTILE_REQUESTS). */
  hostileRequests: number;
  /** Flag counts in one project measured by flag-scale (BENCH_FLAG_SCALE). */
  flagScale: number[];
}

function fraction(name: string, fallback: number): number {
  const raw = (process.env[name] ?? '').trim();
  if (raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new Error(`${name} must be a number from 0 to 1, got "${raw}"`);
  return value;
}

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

const ALIASES: Record<string, ScenarioName> = {
  flags: 'flags',
  'flags-crud': 'flags',
  ingestion: 'ingestion',
  ingest: 'ingestion',
  events: 'ingestion',
  definitions: 'definitions',
  'event-definitions': 'definitions',
  sdk: 'sdk',
  'flag-evaluation': 'sdk',
  surveys: 'surveys',
  'survey-responses': 'survey-responses',
  responses: 'survey-responses',
  'hostile-regex': 'hostile-regex',
  regex: 'hostile-regex',
  'flag-scale': 'flag-scale',
  console: 'console',
  workers: 'workers',
  'flag-cpu': 'flag-cpu',
  'read-your-writes': 'read-your-writes',
  ryw: 'read-your-writes',
  experiments: 'experiments',
  experiment: 'experiments',
  'three-process': 'three-process',
  webhooks: 'webhooks',
  hot: 'hot',
  playground: 'playground',
};

function scenarios(): ScenarioName[] {
  const raw = (process.env.BENCH_SCENARIOS ?? '').trim();
  if (raw === '' || raw === 'all') return [...SCENARIO_NAMES];
  const chosen = new Set<ScenarioName>();
  for (const part of raw.split(',').map((p) => p.trim().toLowerCase()).filter(Boolean)) {
    const name = ALIASES[part];
    if (!name) throw new Error(`BENCH_SCENARIOS: unknown scenario "${part}"; choose among ${SCENARIO_NAMES.join(', ')} (comma-separated)`);
    chosen.add(name);
  }
  return SCENARIO_NAMES.filter((name) => chosen.has(name));
}

function flagOperations(): Operation[] {
  const raw = (process.env.BENCH_FLAG_OPERATIONS ?? '').trim();
  if (raw === '' || raw === 'all') return [...OPERATIONS];
  const chosen = raw.split(',').map((part) => part.trim().toLowerCase()).filter(Boolean);
  for (const name of chosen) {
    if (!(OPERATIONS as readonly string[]).includes(name)) throw new Error(`BENCH_FLAG_OPERATIONS: unknown operation "${name}"; choose among ${OPERATIONS.join(', ')}`);
  }
  return OPERATIONS.filter((operation) => chosen.includes(operation));
}

function counts(name: string, fallback: number[]): number[] {
  const raw = (process.env[name] ?? '').trim();
  if (raw === '') return fallback;
  const values = raw.split(',').map((part) => Number(part.trim().replace(/_/g, '')));
  if (values.some((value) => !Number.isInteger(value) || value <= 0)) throw new Error(`${name} must be positive integers, comma-separated, got "${raw}"`);
  return [...new Set(values)].sort((a, b) => a - b);
}

export function loadBenchConfig(): BenchConfig {
  const ingestClients = Math.round(positiveNumber('BENCH_INGEST_CLIENTS', 6));
  return {
    scenarios: scenarios(),
    adminDatabaseUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test',
    durationSeconds: positiveNumber('BENCH_DURATION', 10),
    warmupSeconds: positiveNumber('BENCH_WARMUP', 2),
    connections: Math.round(positiveNumber('BENCH_CONNECTIONS', 10)),
    seedFlags: Math.round(positiveNumber('BENCH_SEED_FLAGS', 200)),
    flagOperations: flagOperations(),
    skipPeer: ['1', 'true', 'yes'].includes((process.env.BENCH_SKIP_PEER ?? '').toLowerCase()),
    maxForeignCpuPercent: positiveNumber('BENCH_MAX_FOREIGN_CPU', 10),
    retries: Math.round(process.env.BENCH_RETRIES === '0' ? 0 : positiveNumber('BENCH_RETRIES', 3)),
    ingestClients,
    ingestConnections: Math.round(positiveNumber('BENCH_INGEST_CONNECTIONS', ingestClients)),
    ingestDurationSeconds: positiveNumber('BENCH_INGEST_DURATION', 20),
    ingestWarmupSeconds: positiveNumber('BENCH_INGEST_WARMUP', 5),
    ingestDistinctIds: Math.round(positiveNumber('BENCH_INGEST_DISTINCT_IDS', 3000)),
    ingestSurveyShare: fraction('BENCH_INGEST_SURVEY_SHARE', 0),
    seedDefinitions: Math.round(positiveNumber('BENCH_SEED_DEFINITIONS', 10_000)),
    sdkScale: counts('BENCH_SDK_SCALE', [10, 1000, 10_000]),
    sdkHighConnections: Math.round(positiveNumber('BENCH_SDK_HIGH_CONNECTIONS', 50)),
    surveyEvents: positiveInteger('BENCH_SURVEY_EVENTS', 1_000_000),
    responseEvents: positiveInteger('BENCH_RESPONSE_EVENTS', 1_000_000),
    hostileRequests: positiveInteger('BENCH_HOSTILE_REQUESTS', 50),
    flagScale: counts('BENCH_FLAG_SCALE', [10_000, 25_000]),
  };
}
