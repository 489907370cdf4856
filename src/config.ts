import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  dataDir: string;
  initApiKey: string | null;
  logLevel: string;
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 8000;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer between 0 and 65535, got "${raw}"`);
  }
  return port;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: parsePort(env.PORT),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || null,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    initApiKey: env.INIT_API_KEY || null,
    logLevel: env.LOG_LEVEL || 'info',
  };
}
