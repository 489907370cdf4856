import { pageNumbers } from '../lib/page-numbers.ts';

interface PaginationProps {
  offset: number;
  limit: number;
  count: number;
  onOffsetChange: (offset: number) => void;
  noun: string;
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
