import { PUBLIC_BODY_LIMITS } from '../../public/limits.ts';

/**
 * What one ingestion request may carry. Larger requests are refused whole with a 413 (nothing is
 * stored), which posthog-node answers by halving its batch and sending again. docs/ingestion.md
 * documents these numbers.
 */
export const INGESTION_LIMITS = {
  ...PUBLIC_BODY_LIMITS,
  /** One event as JSON, as PostHog's capture limits an event (it drops larger ones). */
  maxEventBytes: 1024 * 1024,
  /** Events in one request. */
  maxEvents: 10_000,
  /** Characters of an event name. PostHog drops longer names; we refuse them. */
  maxEventNameLength: 200,
  /** Characters of a distinct id (PostHog truncates longer ones; we refuse them). */
  maxDistinctIdLength: 200,
} as const;

/** Rows per INSERT statement: a large batch is written in several statements of this size. */
export const INSERT_CHUNK_ROWS = 1000;
