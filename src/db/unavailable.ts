/**
 * Whether an error means the database could not serve the request now (down, restarting, the
 * connection killed, every connection busy past the wait, a statement or lock timeout) rather than
 * that the request or the code was wrong. Such a request is worth retrying later: it answers 503.
 */

/** SQLSTATEs (and classes, by their first two characters) that say "not now". */
const UNAVAILABLE_CLASSES = new Set([
  '08', // connection exception
  '53', // insufficient resources: too many connections, out of memory, disk full
]);
const UNAVAILABLE_CODES = new Set([
  '57014', // query_canceled: statement_timeout
  '55P03', // lock_not_available: lock_timeout
  '57P01', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '57P05', // idle_session_timeout
  '25P03', // idle_in_transaction_session_timeout
  '40001', // serialization_failure: a retry of the whole transaction would likely succeed
  '40P01', // deadlock_detected: likewise
]);

/** Conflicts between concurrent transactions: the loser's whole transaction may simply run again. */
const CONFLICT_CODES = new Set(['40001', '40P01']);

/** Network failures reaching the server (Node's codes). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** `pg` reports a lost connection and a pool wait past its limit as plain errors with these messages. */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Query read timeout',
  'Cannot use a pool after calling end on the pool',
];

function codeOf(error: object): string | null {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : null;
}

/** A serialization failure or deadlock: a unit of work safe to rerun is retried; otherwise a 503. */
export function isRetryableConflict(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = codeOf(error);
  return code !== null && CONFLICT_CODES.has(code);
}

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const code = codeOf(error);
  if (code !== null) {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_CODES.has(code)) return true;
    if (code.length === 5 && UNAVAILABLE_CLASSES.has(code.slice(0, 2))) return true;
  }
  const message = (error as { message?: unknown }).message;
  if (typeof message === 'string' && DRIVER_MESSAGES.some((known) => message.startsWith(known))) return true;
  // Connecting to a host with several addresses fails with every attempt's error.
  const inner = (error as { errors?: unknown }).errors;
  if (Array.isArray(inner) && inner.some((each) => isDatabaseUnavailable(each, depth + 1))) return true;
  return isDatabaseUnavailable((error as { cause?: unknown }).cause, depth + 1);
}
