/**
 * What the three generators share about names: ordering, string literals and identifiers.
 *
 * Event and property names are free text (any Unicode, quotes, backslashes, newlines). They reach
 * generated code in two ways only:
 * - as string literals, through `quote()`, which every target language reads the same way;
 * - as identifiers (Go and Python), through `words()`, which keeps ASCII letters and digits only;
 *   the identifier rules themselves live with each generator.
 * Names never appear raw anywhere else (comments included).
 */

/** Compares by Unicode code point, as PostgreSQL's "C" collation and Python's `str` ordering do. */
export function compareCodePoints(a: string, b: string): number {
  const left = Array.from(a);
  const right = Array.from(b);
  const length = Math.min(left.length, right.length);
  for (let i = 0; i < length; i++) {
    const diff = left[i].codePointAt(0)! - right[i].codePointAt(0)!;
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A double-quoted string literal that is at once valid JSON, TypeScript, Python and Go, and safe
 * on one line: quotes, backslashes and every control or separator character are escaped (C0, DEL,
 * C1, U+2028/U+2029 which end a JavaScript line, U+FEFF which Go refuses inside a file). Other
 * characters stay as they are (UTF-8 source). PostgreSQL text holds no NUL and no lone surrogate.
 */
export function quote(value: string): string {
  let out = '"';
  for (const char of value) {
    const short = SHORT_ESCAPES[char];
    if (short !== undefined) {
      out += short;
      continue;
    }
    const code = char.codePointAt(0)!;
    const escape = code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 || code === 0xfeff;
    out += escape ? `\\u${code.toString(16).padStart(4, '0')}` : char;
  }
  return `${out}"`;
}

/**
 * The runs of ASCII letters and digits of a name; everything else separates words. Accents are
 * dropped first and compatibility forms folded (`café` → `cafe`, `ＡＢＣ` → `ABC`); other scripts
 * and emoji leave nothing.
 */
export function words(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .split(/[^0-9A-Za-z]+/)
    .filter((part) => part.length > 0);
}

export const startsWithDigit = (value: string) => /^[0-9]/.test(value);

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** Each word's first letter upper-cased, the rest kept: `API-Request` → `APIRequest`. */
export function pascalKeepCase(name: string): string {
  return words(name).map(capitalize).join('');
}

/** First word lower-cased, later words `Upper` + lower: `file_name` → `fileName`, `HTTPResponse` → `httpresponse`. */
export function camelCase(name: string): string {
  return words(name)
    .map((word, index) => (index === 0 ? word.toLowerCase() : capitalize(word.toLowerCase())))
    .join('');
}

/** Lower-cased words joined by `_`: `API-Request` → `api_request`. */
export function snakeLower(name: string): string {
  return words(name)
    .map((word) => word.toLowerCase())
    .join('_');
}

/** Words joined by `_`, case kept: `file-size` → `file_size`, `$current url` → `current_url`. */
export function snakeKeepCase(name: string): string {
  return words(name).join('_');
}

/**
 * Hands out unique identifiers: a wanted name that is taken gets the first free numbered variant
 * (`suffix(base, 2)`, then 3, …). Reserved names count as taken from the start.
 */
export class NameAllocator {
  private readonly taken: Set<string>;

  constructor(
    reserved: Iterable<string> = [],
    private readonly suffix: (base: string, n: number) => string = (base, n) => `${base}${n}`,
  ) {
    this.taken = new Set(reserved);
  }

  /** `wanted`, or its first numbered variant that is free; the result is taken from now on. */
  allocate(wanted: string): string {
    return this.allocateBase(wanted, (base) => [base]);
  }

  /**
   * For names derived together from one base (a Go event's `XCapture`, `XOption`, …): the first
   * base (`wanted`, then its numbered variants) for which every derived name is free. Takes the
   * derived names and answers the base.
   */
  allocateBase(wanted: string, derive: (base: string) => string[]): string {
    for (let n = 1; ; n++) {
      const base = n === 1 ? wanted : this.suffix(wanted, n);
      const names = derive(base);
      if (names.some((name) => this.taken.has(name))) continue;
      for (const name of names) this.taken.add(name);
      return base;
    }
  }
}
