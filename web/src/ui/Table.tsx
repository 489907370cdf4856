import type { ReactNode } from 'react';

export interface Column<Row> {
  key: string;
  header: ReactNode;
  render: (row: Row) => ReactNode;
  /** The API's `order` name for this column, when the list can be sorted by it. */
  sortKey?: string;
  align?: 'left' | 'right' | 'center';
  /** Hidden on narrow windows (less important columns). */
  wideOnly?: boolean;
  width?: string;
}

interface TableProps<Row> {
  columns: Column<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string | number;
  /** The current order (`key` or `-key`). */
  order?: string;
  onOrderChange?: (order: string) => void;
  caption: string;
  empty?: ReactNode;
  busy?: boolean;
}

function ariaSort(order: string | undefined, sortKey: string | undefined): 'ascending' | 'descending' | 'none' | undefined {
  if (!sortKey) return undefined;
  if (order === sortKey) return 'ascending';
  if (order === `-${sortKey}`) return 'descending';
  return 'none';
}

export function Table<Row>({ columns, rows, rowKey, order, onOrderChange, caption, empty, busy = false }: TableProps<Row>) {
  return (
    <div className="table-wrap" aria-busy={busy || undefined}>
      <table className="table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => {
              const sort = ariaSort(order, column.sortKey);
              const className = [column.wideOnly ? 'wide-only' : '', column.align ? `align-${column.align}` : ''].filter(Boolean).join(' ') || undefined;
              return (
                <th key={column.key} scope="col" aria-sort={sort} className={className} style={column.width ? { width: column.width } : undefined}>
                  {column.sortKey && onOrderChange ? (
                    <button
                      type="button"
                      className="th-sort"
                      onClick={() => onOrderChange(sort === 'ascending' ? `-${column.sortKey}` : column.sortKey!)}
                    >
                      {column.header}
                      <span className="th-sort-mark" aria-hidden="true">
                        {sort === 'ascending' ? '▲' : sort === 'descending' ? '▼' : '↕'}
                      </span>
                    </button>
                  ) : (
                    column.header
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} className="table-empty">
                {empty ?? 'Nothing here yet.'}
              </td>
            </tr>
          ) : (
            rows.map((row) => (
              <tr key={rowKey(row)}>
                {columns.map((column) => (
                  <td
                    key={column.key}
                    className={[column.wideOnly ? 'wide-only' : '', column.align ? `align-${column.align}` : ''].filter(Boolean).join(' ') || undefined}
                  >
                    {column.render(row)}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
