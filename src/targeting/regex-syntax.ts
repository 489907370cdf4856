/**
 * A `regex` condition's pattern, read as JavaScript reads `new RegExp(pattern)` (no flags, no `u`:
 * posthog-node's reading), rewritten for the linear-time engine so that both find the same
 * texts. The pattern must already compile in JavaScript; what is left to refuse is what the
 * linear-time engine cannot do (lookaround, backreferences) and what PostHog's other readers
 * (RE2, Rust) take for something else than JavaScript does. docs/evaluation.md has the table.
 *
 * Groups become non-capturing (only "does it occur" is asked); `.`, `\s`, `\S`, `\D`, `\W` and
 * negated classes are spelled out as JavaScript's sets of code units (see regex-charsets.ts).
 */
import { classEscapeSet, complement, DOT, literal, single, union, writeSet, type UnitSet } from './regex-charsets.ts';

export type Translation = { source: string } | { problem: string };

/** The largest repetition count the engine accepts (`a{1000}`). */
export const MAX_REPEAT = 1000;

class Refusal extends Error {}

const HEX2 = /[0-9A-Fa-f]{2}/y;
const HEX4 = /[0-9A-Fa-f]{4}/y;
const BRACES = /\{(\d+)(?:(,)(\d*))?\}/y;
const ASCII_LETTER = /^[A-Za-z]$/;
const DIGIT_CHAR = /^[0-9]$/;
const CONTROL_ESCAPES: Record<string, number> = { f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09, v: 0x0b };
const CLASS_SET_OPERATORS = ['&&', '--', '~~'];

/** One class member: its set, and the code unit when it is a single character (a range end). */
interface ClassAtom {
  set: UnitSet;
  unit: number | null;
}

class Translator {
  private pos = 0;

  constructor(private readonly pattern: string) {}

  run(): string {
    const source = this.disjunction();
    if (this.pos < this.pattern.length) throw new Refusal(`unexpected ${this.pattern[this.pos]} at position ${this.pos}`);
    return source;
  }

  private peek(offset = 0): string | undefined {
    return this.pattern[this.pos + offset];
  }

  private sticky(regex: RegExp, at: number): RegExpExecArray | null {
    regex.lastIndex = at;
    return regex.exec(this.pattern);
  }

  private disjunction(): string {
    const alternatives = [this.alternative()];
    while (this.peek() === '|') {
      this.pos += 1;
      alternatives.push(this.alternative());
    }
    return alternatives.join('|');
  }

  private alternative(): string {
    let out = '';
    while (this.pos < this.pattern.length && this.peek() !== '|' && this.peek() !== ')') out += this.term();
    return out;
  }

  private term(): string {
    const c = this.peek();
    if (c === '^' || c === '$') {
      this.pos += 1;
      return c;
    }
    if (c === '\\' && (this.peek(1) === 'b' || this.peek(1) === 'B')) {
      this.pos += 2;
      return `\\${this.pattern[this.pos - 1]}`;
    }
    const atom = this.atom();
    return atom + this.quantifier();
  }

  private atom(): string {
    const c = this.peek()!;
    switch (c) {
      case '(':
        return this.group();
      case '.':
        this.pos += 1;
        return writeSet(DOT);
      case '[':
        return this.characterClass();
      case '\\':
        return writeSet(this.escape(false).set);
      default:
        this.pos += 1;
        return literal(c.charCodeAt(0));
    }
  }

  private group(): string {
    const rest = this.pattern.slice(this.pos, this.pos + 4);
    if (rest.startsWith('(?=') || rest.startsWith('(?!') || rest.startsWith('(?<=') || rest.startsWith('(?<!')) {
      throw new Refusal('lookahead and lookbehind ((?=…), (?!…), (?<=…), (?<!…)) are not supported');
    }
    if (rest.startsWith('(?:')) this.pos += 3;
    else if (rest.startsWith('(?<')) {
      const end = this.pattern.indexOf('>', this.pos);
      if (end < 0) throw new Refusal('unterminated group name');
      this.pos = end + 1;
    } else if (rest.startsWith('(?')) throw new Refusal('unsupported group syntax (?');
    else this.pos += 1;
    const inner = this.disjunction();
    if (this.peek() !== ')') throw new Refusal('unterminated group');
    this.pos += 1;
    return `(?:${inner})`;
  }

  private quantifier(): string {
    const c = this.peek();
    let out: string;
    if (c === '*' || c === '+' || c === '?') {
      this.pos += 1;
      out = c;
    } else if (c === '{') {
      const braces = this.sticky(BRACES, this.pos);
      if (!braces) return ''; // a `{` that starts no count is a literal (read as the next atom)
      const [text, low, comma, high] = braces;
      if (Number(low) > MAX_REPEAT || (high !== undefined && high !== '' && Number(high) > MAX_REPEAT)) {
        throw new Refusal(`repetition counts above ${MAX_REPEAT} are not supported (${text})`);
      }
      this.pos += text.length;
      out = comma === undefined ? `{${Number(low)}}` : high === '' || high === undefined ? `{${Number(low)},}` : `{${Number(low)},${Number(high)}}`;
    } else {
      return '';
    }
    if (this.peek() === '?') {
      this.pos += 1;
      out += '?';
    }
    return out;
  }

  private characterClass(): string {
    this.pos += 1;
    const negated = this.peek() === '^';
    if (negated) this.pos += 1;
    const parts: UnitSet[] = [];
    while (this.peek() !== ']') {
      if (this.pos >= this.pattern.length) throw new Refusal('unterminated character class');
      this.refuseSetOperator();
      const from = this.classAtom();
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.refuseSetOperator();
        this.pos += 1;
        const to = this.classAtom();
        // A range next to a class escape (`[\d-z]`): JavaScript takes both and the dash.
        if (from.unit === null || to.unit === null) parts.push(from.set, single(0x2d), to.set);
        else if (from.unit > to.unit) throw new Refusal('range out of order in character class');
        else parts.push([[from.unit, to.unit]]);
      } else {
        parts.push(from.set);
      }
    }
    this.pos += 1;
    const set = union(...parts);
    return writeSet(negated ? complement(set) : set);
  }

  /** `&&`, `--`, `~~` in a class: literal characters to JavaScript, set operations to Rust's regex (PostHog's server). */
  private refuseSetOperator(): void {
    const operator = CLASS_SET_OPERATORS.find((op) => this.pattern.startsWith(op, this.pos));
    if (operator) throw new Refusal(`${operator} inside a character class is a set operation for other engines; escape the characters (\\${operator[0]}\\${operator[1]})`);
  }

  private classAtom(): ClassAtom {
    const c = this.peek()!;
    if (c === '\\') return this.escape(true);
    if (c === '[') throw new Refusal('an unescaped [ inside a character class ([[:alpha:]], nested classes) means something else to other engines; write \\[');
    this.pos += 1;
    const unit = c.charCodeAt(0);
    return { set: single(unit), unit };
  }

  /** An escape outside (`\b`, `\B` excluded: they are assertions there) or inside a class. */
  private escape(inClass: boolean): ClassAtom {
    const e = this.peek(1);
    if (e === undefined) throw new Refusal('\\ at end of pattern');
    this.pos += 2;
    const unitAtom = (unit: number): ClassAtom => ({ set: single(unit), unit });
    const classSet = classEscapeSet(e);
    if (classSet) return { set: classSet, unit: null };
    if (e in CONTROL_ESCAPES) return unitAtom(CONTROL_ESCAPES[e]);
    if (inClass && e === 'b') return unitAtom(0x08);
    if (e === 'c') {
      const letter = this.peek();
      if (letter === undefined || !ASCII_LETTER.test(letter)) throw new Refusal('\\c must be followed by a letter (\\cJ)');
      this.pos += 1;
      return unitAtom(letter.charCodeAt(0) % 32);
    }
    if (e === '0' && !DIGIT_CHAR.test(this.peek() ?? '')) return unitAtom(0);
    if (DIGIT_CHAR.test(e)) throw new Refusal(`backreferences and octal escapes (\\${e}) are not supported`);
    if (e === 'x' || e === 'u') {
      const digits = this.sticky(e === 'x' ? HEX2 : HEX4, this.pos);
      if (!digits) return unitAtom(e.charCodeAt(0)); // JavaScript reads a bare \x or \u as the letter
      this.pos += digits[0].length;
      return unitAtom(parseInt(digits[0], 16));
    }
    if (e === 'k') throw new Refusal('named backreferences (\\k<name>) are not supported');
    if (ASCII_LETTER.test(e)) {
      throw new Refusal(`\\${e} is not supported: JavaScript reads it as the letter ${e}, other engines as something else; write ${e}`);
    }
    return unitAtom(e.charCodeAt(0));
  }
}

/** The engine's pattern for a pattern JavaScript compiles, or why it is refused. */
export function translatePattern(pattern: string): Translation {
  try {
    return { source: new Translator(pattern).run() };
  } catch (error) {
    if (error instanceof Refusal) return { problem: error.message };
    throw error;
  }
}
