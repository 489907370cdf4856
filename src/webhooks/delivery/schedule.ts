/**
 * When a failed delivery is tried again: exponential backoff with jitter over about a day.
 * After attempt n (1-based) the next waits 15 s × 4^(n−1), at most 8 h, each ±20 % at random:
 * 15 s, 1 min, 4 min, 16 min, 64 min, 4 h 16 min, 8 h, 8 h, then no more. Nine attempts span
 * about 21.7 h (17–26 h with the jitter); the ninth failure marks the delivery failed.
 */
export const MAX_ATTEMPTS = 9;
const BASE_MS = 15_000;
const FACTOR = 4;
const CAP_MS = 8 * 60 * 60 * 1000;
const JITTER = 0.2;

/** The nominal wait after attempt `attempt` failed (no jitter). */
export function nominalRetryDelay(attempt: number): number {
  return Math.min(CAP_MS, BASE_MS * FACTOR ** Math.max(0, attempt - 1));
}

/** The wait after attempt `attempt` failed, or null when it was the last. */
export function retryDelay(attempt: number, random: () => number = Math.random): number | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  const nominal = nominalRetryDelay(attempt);
  return Math.round(nominal * (1 - JITTER + 2 * JITTER * random()));
}
