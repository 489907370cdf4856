/**
 * CSV cells and rows (RFC 4180: fields holding a comma, a double quote, CR or LF are quoted, quotes
 * doubled, rows end with CRLF), with a guard against formula injection: a cell starting with `=`,
 * `+`, `-`, `@`, a tab or CR gets a leading `'`, so that a spreadsheet shows it as text.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** The text of one answer: a list (multiple choice) joined with ", ", objects as JSON, nothing for null. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? item : cellText(item))).join(', ');
  return JSON.stringify(value);
}

/** One field, guarded and quoted as needed. */
export function csvField(text: string): string {
  const guarded = FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

export function csvRow(cells: string[]): string {
  return `${cells.map(csvField).join(',')}\r\n`;
}

/**
 * A file name safe in a Content-Disposition header and on any file system: ASCII letters, digits,
 * `.`, `_` and `-`, at most 100 characters, never empty.
 */
export function safeFileName(base: string, extension: string): string {
  const cleaned = base
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 100 - extension.length - 1);
  return `${cleaned || 'export'}.${extension}`;
}
