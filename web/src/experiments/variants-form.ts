/** The create form's flag key and split helpers. Pure. */

/** A flag key from a name: lower case, dashes, nothing PostHog's key rule refuses. */
export function keyFromName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 380);
}

/** Splits 100 % as evenly as whole percentages allow (the first variants take the remainder). */
export function evenSplit(count: number): number[] {
  const base = Math.floor(100 / count);
  return Array.from({ length: count }, (_, index) => base + (index < 100 - base * count ? 1 : 0));
}
