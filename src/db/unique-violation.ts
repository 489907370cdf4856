/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';

/**
 * A write refused by a unique index (`constraint`: that index only). Where the database decides
 * uniqueness, the write tries and this tells the caller that the value was taken.
 */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; constraint?: unknown };
  return e.code === UNIQUE_VIOLATION && (constraint === undefined || e.constraint === constraint);
}
