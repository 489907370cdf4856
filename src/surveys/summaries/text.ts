/**
 * Words of open answers, for the local (language-model-free) summaries: tokens, stop words, a light
 * plural folding, and the low-quality filter PostHog's summaries apply. Pure and deterministic.
 */

/** English function words and feedback fillers that never make a theme. */
const STOP_WORDS = new Set(
  (
    'a about above after again against all almost also am an and any anything are around as at be because been before being ' +
    'below between both but by can cannot could did do does doing done dont down during each either else enough etc ever every ' +
    'few for from further get gets getting give go goes going gone got had has have having he her here hers herself him himself ' +
    'his how however i id if im in into is isnt it its itself ive just keep kind know least less let lets like likes lot lots ' +
    'made make makes many may maybe me might mine more most much must my myself need needs no nor not nothing now of off often ' +
    'ok okay on once one only or other others our ours ourselves out over own per please pretty quite rather re really same ' +
    'see seem seems she should since so some something sometimes still such sure than thank thanks that thats the their theirs ' +
    'them themselves then there these they thing things think this those though through thus to too toward under until up ' +
    'upon us use used uses using very via was wasnt way we well were what whatever when where whether which while who whom whose ' +
    'why will with within without wont would yes yet you your youre yours yourself yourselves'
  ).split(' '),
);

/** Short single words that still say something (PostHog's allow-list, extended). */
const MEANINGFUL_SHORT_WORDS = new Set(
  (
    'ui ux bug bugs pricing price prices api apis docs doc sdk sdks speed slow fast support design mobile search login ' +
    'signup export import billing crash crashes cost costs expensive cheap ads spam dashboard dashboards charts reports ' +
    'errors error latency uptime security privacy ios android web desktop app apps ai'
  ).split(' '),
);

export interface Token {
  /** The folded form that counts: lower case, plural folded. */
  stem: string;
  /** The word as written (lower case). */
  surface: string;
  /** A stop word: breaks bigrams, never a theme. */
  stop: boolean;
}

/** A word that may be a theme on its own: three letters or more, or a known short word ("ui", "api"). */
export function standsAlone(token: Token): boolean {
  return !token.stop && (token.stem.length >= 3 || MEANINGFUL_SHORT_WORDS.has(token.surface));
}

/** `features` → `feature`, `categories` → `category`; `status`, `analysis`, `class` stay. */
function foldPlural(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** The words of a text in order; apostrophes join (`don't` → `dont`), digits-only words are dropped. */
export function tokenize(text: string): Token[] {
  const words = text
    .toLowerCase()
    .replace(/['’`]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
  return words
    .filter((word) => !/^\p{N}+$/u.test(word))
    .map((surface) => ({ surface, stem: foldPlural(surface), stop: surface.length < 2 || STOP_WORDS.has(surface) }));
}

/**
 * Low quality, as PostHog judges it: a single word shorter than 10 characters that is not a known meaningful word ("ok", "asdf"),
 * or a text of 6+ characters that is mostly one repeated character ("aaaaaa", "!!!!!!!").
 */
export function isLowQualityAnswer(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.length === 0) return true;
  if (!/\s/.test(trimmed) && trimmed.length < 10) {
    const word = trimmed.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
    if (!MEANINGFUL_SHORT_WORDS.has(word)) return true;
  }
  if (trimmed.length >= 6) {
    const counts = new Map<string, number>();
    for (const char of trimmed) counts.set(char, (counts.get(char) ?? 0) + 1);
    const top = Math.max(...counts.values());
    if (top / [...trimmed].length > 0.6) return true;
  }
  return false;
}

/** Words in a plain sentence: runs of non-space characters. */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => word.length > 0).length;
}

/** At most `max` characters, cut at a word boundary with an ellipsis; whitespace collapsed. */
export function excerpt(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** "1 response", "3 responses". */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

/** A whole percentage of `part` in `total` (0 when total is 0). */
export function percent(part: number, total: number): number {
  return total === 0 ? 0 : Math.round((100 * part) / total);
}
