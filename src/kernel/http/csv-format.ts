import { validationError } from '../errors.ts';

/** The media types a list may answer with, in the Accept header's order of preference. */
function acceptPrefersCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const entries = accept
    .split(',')
    .slice(0, 20)
    .map((part, order) => {
      const [type, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { type: type.trim(), q: q === undefined ? 1 : Number(q), order };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order);
  const chosen = entries.find((entry) => ['text/csv', 'application/json', 'application/*', '*/*'].includes(entry.type));
  return chosen?.type === 'text/csv';
}

/**
 * DRF's convention for a list that can also be CSV: `?format=csv` (or `json`), else the Accept
 * header when it prefers `text/csv` to JSON. Another `format` is a 400.
 */
export function wantsCsv(format: string | undefined, accept: string | undefined): boolean {
  if (format !== undefined && format.trim() !== '') {
    const value = format.trim().toLowerCase();
    if (value === 'csv') return true;
    if (value === 'json') return false;
    throw validationError('Unsupported format; use json or csv.', 'format', 'invalid');
  }
  return acceptPrefersCsv(accept);
}
