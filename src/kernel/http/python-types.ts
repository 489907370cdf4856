/** Python's name for a JSON value's type, as DRF prints it (`got type "list"`). */
export function pythonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'string':
      return 'str';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(value) ? 'int' : 'float';
    default:
      return 'dict';
  }
}

/** Longest text of a value quoted back in an error message. */
const MAX_QUOTED = 100;

function pythonRepr(value: unknown, budget: { left: number }): string {
  if (budget.left <= 0) return '…';
  let out: string;
  if (value === null || value === undefined) out = 'None';
  else if (value === true) out = 'True';
  else if (value === false) out = 'False';
  else if (typeof value === 'number') out = String(value);
  else if (typeof value === 'string') out = `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  else if (Array.isArray(value)) {
    const parts: string[] = [];
    for (const item of value) {
      if (budget.left <= 0) break;
      parts.push(pythonRepr(item, budget));
    }
    out = `[${parts.join(', ')}]`;
  } else {
    const parts: string[] = [];
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      if (budget.left <= 0) break;
      parts.push(`${pythonRepr(key, budget)}: ${pythonRepr(inner, budget)}`);
    }
    out = `{${parts.join(', ')}}`;
  }
  budget.left -= out.length;
  return out;
}

/**
 * The value as Python's `str()` prints it, as DRF quotes an input back (`"{'a': 1}" is not a valid
 * choice.`): strings as they are, `True`/`None`, lists and dicts in Python's notation. Never
 * calls the value's own methods (an object with a `toString` key is data, not code), and is cut
 * at about 100 characters.
 */
export function pythonStr(value: unknown): string {
  const text = typeof value === 'string' ? value : pythonRepr(value, { left: MAX_QUOTED });
  return text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text;
}
