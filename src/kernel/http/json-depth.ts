/**
 * How deep a JSON body may nest objects and lists. Checked on the text before it is parsed, so no
 * recursive code (the parser's prototype scan, Ajv, the services, JSON.stringify, PostgreSQL's
 * jsonb parser) ever sees a deeper value and overflows its stack. The deepest real management
 * bodies (cohort property groups, flag filters with payloads, survey branching) stay under 12.
 */

export const MAX_BODY_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** Whether the JSON text nests objects/arrays deeper than `limit` (strings skipped; no parsing). */
export function nestedDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Jump to the closing quote: one not preceded by an odd number of backslashes.
      for (;;) {
        const end = text.indexOf('"', i + 1);
        if (end === -1) return false;
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
        i = end;
        if (slashes % 2 === 0) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
