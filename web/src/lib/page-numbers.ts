/** Page numbers to offer: the first, the last, and two either side of the current one; null is a gap. */
export function pageNumbers(current: number, total: number): Array<number | null> {
  const shown = new Set([1, total, current - 2, current - 1, current, current + 1, current + 2].filter((page) => page >= 1 && page <= total));
  const sorted = [...shown].sort((a, b) => a - b);
  const withGaps: Array<number | null> = [];
  for (const page of sorted) {
    const previous = withGaps[withGaps.length - 1];
    if (typeof previous === 'number' && page - previous === 2) withGaps.push(previous + 1);
    else if (typeof previous === 'number' && page - previous > 2) withGaps.push(null);
    withGaps.push(page);
  }
  return withGaps;
}
