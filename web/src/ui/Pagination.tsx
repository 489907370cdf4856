interface PaginationProps {
  offset: number;
  limit: number;
  count: number;
  onOffsetChange: (offset: number) => void;
  noun: string;
}

export function Pagination({ offset, limit, count, onOffsetChange, noun }: PaginationProps) {
  if (count === 0) return null;
  const first = offset + 1;
  const last = Math.min(offset + limit, count);
  return (
    <nav className="pagination" aria-label={`Pages of ${noun}`}>
      <span className="muted">
        {first}–{last} of {count} {noun}
      </span>
      <div className="row">
        <button type="button" className="btn btn-secondary btn-sm" disabled={offset === 0} onClick={() => onOffsetChange(Math.max(0, offset - limit))}>
          Previous
        </button>
        <button type="button" className="btn btn-secondary btn-sm" disabled={last >= count} onClick={() => onOffsetChange(offset + limit)}>
          Next
        </button>
      </div>
    </nav>
  );
}
