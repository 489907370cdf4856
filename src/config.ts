import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  dataDir: string;
  initApiKey: string | null;
  logLevel: string;
  /** SURVEY_JOBS_INTERVAL_MS: between rounds of the periodic survey work (default 60 000; 0 = off). */
  surveyJobsIntervalMs: number;
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 8000;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer between 0 and 65535, got "${raw}"`);
  }
  return port;
}

function parseInterval(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 60_000;
  const ms = Number(raw);
  if (!Number.isSafeInteger(ms) || ms < 0) throw new Error(`SURVEY_JOBS_INTERVAL_MS must be a non-negative integer, got "${raw}"`);
  return ms;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: parsePort(env.PORT),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || null,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    initApiKey: env.INIT_API_KEY || null,
    logLevel: env.LOG_LEVEL || 'info',
    surveyJobsIntervalMs: parseInterval(env.SURVEY_JOBS_INTERVAL_MS),
  };
}
