interface PaginationProps {
  offset: number;
  limit: number;
  count: number;
  onOffsetChange: (offset: number) => void;
  noun: string;
}

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

export function Pagination({ offset, limit, count, onOffsetChange, noun }: PaginationProps) {
  if (count === 0) return null;
  const first = Math.min(offset + 1, count);
  const last = Math.min(offset + limit, count);
  const total = Math.max(1, Math.ceil(count / limit));
  const current = Math.min(total, Math.floor(offset / limit) + 1);
  const goTo = (page: number) => onOffsetChange((page - 1) * limit);
  return (
    <nav className="pagination" aria-label={`Pages of ${noun}`}>
      <span className="muted">
        {first}–{last} of {count} {noun}
      </span>
      {total > 1 ? (
        <div className="pagination-pages">
          <button type="button" className="btn btn-secondary btn-sm" disabled={current === 1} onClick={() => goTo(current - 1)}>
            Previous
          </button>
          {pageNumbers(current, total).map((page, index) =>
            page === null ? (
              <span key={`gap-${index}`} className="pagination-gap" aria-hidden="true">
                …
              </span>
            ) : (
              <button
                key={page}
                type="button"
                className={`btn btn-sm pagination-page${page === current ? ' pagination-current' : ''}`}
                aria-label={`Page ${page}`}
                aria-current={page === current ? 'page' : undefined}
                onClick={() => goTo(page)}
              >
                {page}
              </button>
            ),
          )}
          <button type="button" className="btn btn-secondary btn-sm" disabled={current === total} onClick={() => goTo(current + 1)}>
            Next
          </button>
        </div>
      ) : null}
    </nav>
  );
}
