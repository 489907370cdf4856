/** A line diff of two JSON values, for the activity history ("who changed what"). Pure. */

export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

/** Lines of a value as the history shows it: strings as they are, anything else as indented JSON. */
export function valueLines(value: unknown): string[] {
  if (value === undefined) return [];
  if (typeof value === 'string') return value.split('\n');
  return JSON.stringify(value, null, 2).split('\n');
}

/** Above this many lines on both sides the diff shows the whole before and after instead (quadratic table). */
const MAX_LINES = 2000;

/** The shortest edit from `before` to `after`, line by line (longest common subsequence). */
export function diffLines(before: string[], after: string[]): DiffLine[] {
  if (before.length * after.length > MAX_LINES * MAX_LINES) {
    return [...before.map((text) => ({ kind: 'removed' as const, text })), ...after.map((text) => ({ kind: 'added' as const, text }))];
  }
  const rows = before.length;
  const cols = after.length;
  // common[i][j]: length of the longest common subsequence of before[i..] and after[j..].
  const common: Uint32Array[] = Array.from({ length: rows + 1 }, () => new Uint32Array(cols + 1));
  for (let i = rows - 1; i >= 0; i -= 1) {
    for (let j = cols - 1; j >= 0; j -= 1) {
      common[i][j] = before[i] === after[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < rows && j < cols) {
    if (before[i] === after[j]) {
      lines.push({ kind: 'same', text: before[i] });
      i += 1;
      j += 1;
    } else if (common[i + 1][j] >= common[i][j + 1]) {
      lines.push({ kind: 'removed', text: before[i] });
      i += 1;
    } else {
      lines.push({ kind: 'added', text: after[j] });
      j += 1;
    }
  }
  while (i < rows) lines.push({ kind: 'removed', text: before[i++] });
  while (j < cols) lines.push({ kind: 'added', text: after[j++] });
  return lines;
}

export function diffValues(before: unknown, after: unknown): DiffLine[] {
  return diffLines(valueLines(before), valueLines(after));
}
