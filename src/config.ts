import os from 'node:os';
import path from 'node:path';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from './db/pool.ts';
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from './accounts/auth/authenticator.ts';
import { parseOidcSettings, type OidcSettings } from './accounts/oidc/settings.ts';
import type { MailSettings } from './kernel/mail/mailer.ts';
import { parseTrustProxy, type TrustProxy } from './kernel/http/trust-proxy.ts';
import { parseAllowedHosts } from './webhooks/delivery/destination.ts';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  /**
   * DATABASE_LISTEN_URL: direct (session) connections for change notices (LISTEN), the change-counter reads and migrations
   * (a session advisory lock); default DATABASE_URL, which may then go through a transaction-mode pooler.
   */
  listenUrl: string | null;
  /** DATABASE_POOL_SIZE: connections in this process's pool (default 10). */
  poolSize: number;
  /** DATABASE_PREPARED_STATEMENTS: `false` for a pooler that cannot keep named statements (PgBouncer < 1.21 in transaction mode). */
  preparedStatements: boolean;
  dataDir: string;
  /** METRICS_PORT: Prometheus metrics at /metrics on this port (on HOST); null (unset): off. */
  metricsPort: number | null;
  /** WORKERS: serving processes (default: one per core; 1 runs everything in one process). */
  workers: number;
  initApiKey: string | null;
  logLevel: string;
  /** SURVEY_JOBS_INTERVAL_MS: between rounds of the periodic survey work (default 60 000; 0 = off). */
  surveyJobsIntervalMs: number;
  /** EXPERIMENT_SIGNIFICANCE_INTERVAL_MS: between rounds that recompute running experiments' results for `experiment.significant` (default 60 000; 0 = off). */
  experimentSignificanceIntervalMs: number;
  /** SCHEDULED_CHANGES_INTERVAL_MS: between rounds of the scheduled-change executor on this node (default 5 000; 0 = off). */
  scheduledChangesIntervalMs: number;
  /** SCHEDULED_CHANGES_CONCURRENCY (default 1): units of work applying due changes at once on this node. */
  scheduledChangesConcurrency: number;
  /** SCHEDULED_CHANGES_BATCH (default 50): due changes claimed and committed together by one unit of work. */
  scheduledChangesBatch: number;
  /** SCHEDULED_CHANGES_PAUSE_PERCENT (default 25): after each batch, a pause of this percentage of the batch's time. */
  scheduledChangesPausePercent: number;
  /** SCHEDULED_CHANGES_WRITE_WAIT_MS (default 0): longest a batch waits for a gap in this node's API writes. */
  scheduledChangesWriteWaitMs: number;
  /** TRUST_PROXY: the proxies' addresses/CIDRs (comma-separated), a hop count, or `true`; default false. */
  trustProxy: TrustProxy;
  /** SITE_URL: the public base URL for links; null: the listen URL (or each request's origin). */
  siteUrl: string | null;
  /** SESSION_IDLE_TIMEOUT_SECONDS (default 14 days) and SESSION_MAX_AGE_SECONDS (default 30 days). */
  sessionLimits: SessionLimits;
  /** INIT_ADMIN_EMAIL / INIT_ADMIN_PASSWORD: the owner to make sure of at start. */
  initAdminEmail: string | null;
  initAdminPassword: string | null;
  /**
   * DATABASE_CONNECT_TIMEOUT_MS (5 000), DATABASE_STATEMENT_TIMEOUT_MS (30 000),
   * DATABASE_LOCK_TIMEOUT_MS (5 000), DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS (60 000).
   */
  databaseTimeouts: DatabaseTimeouts;
  /** SECRET_KEY: encrypts stored webhook signing secrets (AES-GCM); unset: stored as they are. */
  secretKey: string | null;
  /** WEBHOOK_ALLOWED_HOSTS: comma-separated hosts webhooks may reach though private or over http. */
  webhookAllowedHosts: ReadonlySet<string>;
  /** WEBHOOK_CONCURRENCY (default 4): requests in flight to one endpoint at once, across processes. */
  webhookConcurrency: number;
  /** WEBHOOK_TIMEOUT_MS (default 10 000, 1 000–10 000): one delivery attempt's limit. */
  webhookTimeoutMs: number;
  /**
   * BACKGROUND_NICE (default 10, 0–19): with WORKERS > 1, the niceness the background process
   * (webhook delivery, cluster/background.ts) gives itself, so the kernel runs the API workers first.
   * Lowering a priority is always allowed, also in containers; 0 leaves it as it is.
   */
  backgroundNice: number;
  /** OIDC_*: single sign-on; null when OIDC_ISSUER_URL is unset. */
  oidc: OidcSettings | null;
  /** SMTP_URL and EMAIL_FROM: e-mail (invites, password resets); null when SMTP_URL is unset. */
  mail: MailSettings | null;
}

function parsePort(raw: string | undefined, name = 'PORT'): number {
  if (raw === undefined || raw === '') return 8000;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`${name} must be an integer between 0 and 65535, got "${raw}"`);
  }
  return port;
}

function parseInterval(raw: string | undefined, name = 'SURVEY_JOBS_INTERVAL_MS', fallback = 60_000): number {
  if (raw === undefined || raw === '') return fallback;
  const ms = Number(raw);
  if (!Number.isSafeInteger(ms) || ms < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return ms;
}

function parsePoolSize(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 10;
  const size = Number(raw);
  // One connection would leave a request that reads outside its open transaction waiting on itself.
  if (!Number.isInteger(size) || size < 2 || size > 1000) throw new Error(`DATABASE_POOL_SIZE must be a whole number from 2 to 1000, got "${raw}"`);
  return size;
}

function parseWorkers(raw: string | undefined): number {
  if (raw === undefined || raw === '') return Math.max(1, os.availableParallelism());
  const workers = Number(raw);
  if (!Number.isInteger(workers) || workers < 1 || workers > 256) throw new Error(`WORKERS must be an integer between 1 and 256, got "${raw}"`);
  return workers;
}

function parseBoolean(name: string, raw: string | undefined, fallback: boolean): boolean {
  const value = raw?.trim().toLowerCase() ?? '';
  if (value === '') return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

function parseSiteUrl(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(`SITE_URL must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`SITE_URL must be an absolute http(s) URL, got "${raw}"`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function parseSeconds(name: string, raw: string | undefined, fallbackMs: number): number {
  if (raw === undefined || raw === '') return fallbackMs;
  const seconds = Number(raw);
  if (!Number.isSafeInteger(seconds) || seconds < 60) throw new Error(`${name} must be a whole number of seconds, at least 60, got "${raw}"`);
  return seconds * 1000;
}

/** Milliseconds, 0 (no limit, PostgreSQL's meaning) or at least `min`. */
function parseMillis(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const ms = Number(raw);
  if (!Number.isSafeInteger(ms) || ms < 0 || (ms !== 0 && ms < min)) {
    throw new Error(`${name} must be a whole number of milliseconds, 0 or at least ${min}, got "${raw}"`);
  }
  return ms;
}

function parseDatabaseTimeouts(env: NodeJS.ProcessEnv): DatabaseTimeouts {
  const defaults = DEFAULT_DATABASE_TIMEOUTS;
  return {
    connectMs: parseMillis('DATABASE_CONNECT_TIMEOUT_MS', env.DATABASE_CONNECT_TIMEOUT_MS, defaults.connectMs, 100),
    statementMs: parseMillis('DATABASE_STATEMENT_TIMEOUT_MS', env.DATABASE_STATEMENT_TIMEOUT_MS, defaults.statementMs, 100),
    lockMs: parseMillis('DATABASE_LOCK_TIMEOUT_MS', env.DATABASE_LOCK_TIMEOUT_MS, defaults.lockMs, 100),
    idleInTransactionMs: parseMillis(
      'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS',
      env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      defaults.idleInTransactionMs,
      1_000,
    ),
  };
}

function parseWholeNumber(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return value;
}

function parseMail(env: NodeJS.ProcessEnv): MailSettings | null {
  const smtpUrl = env.SMTP_URL?.trim() ?? '';
  if (smtpUrl === '') return null;
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    throw new Error('SMTP_URL must be a URL such as smtp://user:password@host:587');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`SMTP_URL must start with smtp:// or smtps://, got "${url.protocol}//"`);
  const from = env.EMAIL_FROM?.trim() ?? '';
  if (from === '' || /[\r\n]/.test(from)) throw new Error('EMAIL_FROM is required with SMTP_URL: the sender, e.g. "Bellwether <bellwether@example.com>"');
  return { smtpUrl, from };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const siteUrl = parseSiteUrl(env.SITE_URL);
  const oidc = parseOidcSettings(env);
  if (oidc && siteUrl === null) {
    throw new Error('OIDC_ISSUER_URL needs SITE_URL: the redirect URI registered with the provider is {SITE_URL}/api/auth/oidc/callback');
  }
  return {
    port: parsePort(env.PORT),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || null,
    listenUrl: env.DATABASE_LISTEN_URL || env.DATABASE_URL || null,
    poolSize: parsePoolSize(env.DATABASE_POOL_SIZE),
    preparedStatements: parseBoolean('DATABASE_PREPARED_STATEMENTS', env.DATABASE_PREPARED_STATEMENTS, true),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    workers: parseWorkers(env.WORKERS),
    metricsPort: env.METRICS_PORT ? parsePort(env.METRICS_PORT, 'METRICS_PORT') : null,
    initApiKey: env.INIT_API_KEY || null,
    logLevel: env.LOG_LEVEL || 'info',
    surveyJobsIntervalMs: parseInterval(env.SURVEY_JOBS_INTERVAL_MS),
    experimentSignificanceIntervalMs: parseInterval(env.EXPERIMENT_SIGNIFICANCE_INTERVAL_MS, 'EXPERIMENT_SIGNIFICANCE_INTERVAL_MS', 60_000),
    scheduledChangesIntervalMs: parseInterval(env.SCHEDULED_CHANGES_INTERVAL_MS, 'SCHEDULED_CHANGES_INTERVAL_MS', 5_000),
    scheduledChangesConcurrency: parseWholeNumber('SCHEDULED_CHANGES_CONCURRENCY', env.SCHEDULED_CHANGES_CONCURRENCY, 1, 1, 32),
    scheduledChangesBatch: parseWholeNumber('SCHEDULED_CHANGES_BATCH', env.SCHEDULED_CHANGES_BATCH, 50, 1, 1000),
    scheduledChangesPausePercent: parseWholeNumber('SCHEDULED_CHANGES_PAUSE_PERCENT', env.SCHEDULED_CHANGES_PAUSE_PERCENT, 25, 0, 1000),
    scheduledChangesWriteWaitMs: parseWholeNumber('SCHEDULED_CHANGES_WRITE_WAIT_MS', env.SCHEDULED_CHANGES_WRITE_WAIT_MS, 0, 0, 1000),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    siteUrl,
    sessionLimits: {
      idleMs: parseSeconds('SESSION_IDLE_TIMEOUT_SECONDS', env.SESSION_IDLE_TIMEOUT_SECONDS, DEFAULT_SESSION_LIMITS.idleMs),
      maxAgeMs: parseSeconds('SESSION_MAX_AGE_SECONDS', env.SESSION_MAX_AGE_SECONDS, DEFAULT_SESSION_LIMITS.maxAgeMs),
    },
    initAdminEmail: env.INIT_ADMIN_EMAIL?.trim() || null,
    initAdminPassword: env.INIT_ADMIN_PASSWORD || null,
    databaseTimeouts: parseDatabaseTimeouts(env),
    secretKey: env.SECRET_KEY || null,
    webhookAllowedHosts: parseAllowedHosts(env.WEBHOOK_ALLOWED_HOSTS),
    webhookConcurrency: parseWholeNumber('WEBHOOK_CONCURRENCY', env.WEBHOOK_CONCURRENCY, 4, 1, 100),
    webhookTimeoutMs: parseWholeNumber('WEBHOOK_TIMEOUT_MS', env.WEBHOOK_TIMEOUT_MS, 10_000, 1_000, 10_000),
    backgroundNice: parseWholeNumber('BACKGROUND_NICE', env.BACKGROUND_NICE, 10, 0, 19),
    oidc,
    mail: parseMail(env),
  };
}
