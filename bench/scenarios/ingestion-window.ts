import type { Measurement } from '../lib/autocannon.ts';
import type { CpuShare } from '../lib/cpu-monitor.ts';
import type { PgWaits } from '../lib/pg-waits.ts';

/** One measured window of a variant. */
export interface IngestionWindow {
  /** Rows that appeared in `events` during the window, per second: what was durably stored. */
  eventsPerSecond: number;
  eventsStored: number;
  seconds: number;
  /** Batches answered 2xx during the window, per second, and their mean size (stored events / batches). */
  batchesPerSecond: number;
  meanEventsPerBatch: number;
  /** Request latency per batch (request sent → answer), ms; null when not observable. */
  batchLatencyMs: Measurement['latencyMs'] | null;
  /** Non-2xx answers, socket errors, client errors and events captured but not stored, over the whole attempt. */
  errors: number;
  /** Batches in flight on average (Little's law: batches/s × mean latency). */
  inFlight: number | null;
  cpu: CpuShare | null;
  /** What the server's PostgreSQL connections were doing (pg_stat_activity samples). */
  pgWaits: PgWaits | null;
  /** Rows in `events` when the window opened (the table grows run after run). */
  eventsInTableAtStart: number;
  /** How long the `SELECT count(*)` at the window's edges took, ms. */
  countQueryMs: number[];
}

export type IngestionResult = IngestionWindow & { attempts: number; disturbed: boolean; details: Record<string, unknown> };
