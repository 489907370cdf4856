/**
 * The main themes of open answers, without a language model: the words and two-word phrases most
 * answers share. Deterministic: the same answers in the same order always give the same themes.
 *
 * 1. Each answer becomes a set of terms: its content words (stop words dropped, plurals folded) and
 *    the pairs of adjacent content words ("dark mode").
 * 2. Terms are ranked by how many answers use them; on a tie a phrase beats a word, then longer
 *    words beat shorter ones, then alphabetical order decides.
 * 3. Walking that ranking, a term shared by at least two answers becomes a theme unless the
 *    answers using it are all inside one theme already chosen (so "dark" does not repeat
 *    "dark mode"). At most five themes.
 */
import { excerpt, percent, standsAlone, tokenize, type Token } from './text.ts';

export type ThemeFrequency = 'Common' | 'Moderate' | 'Rare';

export interface Theme {
  /** Display label: the term as most often written, capitalised ("Dark mode"). */
  label: string;
  /** Indexes (into the answers) of the answers that use the term, ascending. */
  answers: number[];
  frequency: ThemeFrequency;
  /** Up to two other words frequent among this theme's answers. */
  relatedWords: string[];
}

export interface ThemeAnalysis {
  total: number;
  themes: Theme[];
  /** Answers that use none of the themes' terms. */
  unthemed: number;
}

const MAX_THEMES = 5;
const MIN_SHARED = 2;

/** The band PostHog's summaries name: by the share of answers that raise the theme. */
export function frequencyBand(count: number, total: number): ThemeFrequency {
  const share = total === 0 ? 0 : count / total;
  if (share >= 0.4) return 'Common';
  if (share >= 0.2) return 'Moderate';
  return 'Rare';
}

interface Term {
  key: string;
  isPhrase: boolean;
  /** Which answers use it (each at most once). */
  answers: Set<number>;
  /** Written forms and how often, for the label. */
  surfaces: Map<string, number>;
  /** The stems it is made of. */
  stems: string[];
}

function termsOf(tokens: Token[]): Array<{ key: string; surface: string; stems: string[]; isPhrase: boolean }> {
  const out: Array<{ key: string; surface: string; stems: string[]; isPhrase: boolean }> = [];
  tokens.forEach((token, i) => {
    if (token.stop) return;
    if (standsAlone(token)) out.push({ key: token.stem, surface: token.surface, stems: [token.stem], isPhrase: false });
    const next = tokens[i + 1];
    if (next && !next.stop && next.stem !== token.stem) {
      out.push({ key: `${token.stem} ${next.stem}`, surface: `${token.surface} ${next.surface}`, stems: [token.stem, next.stem], isPhrase: true });
    }
  });
  return out;
}

function collectTerms(answers: readonly string[]): Map<string, Term> {
  const terms = new Map<string, Term>();
  answers.forEach((answer, index) => {
    for (const found of termsOf(tokenize(answer))) {
      let term = terms.get(found.key);
      if (!term) {
        term = { key: found.key, isPhrase: found.isPhrase, answers: new Set(), surfaces: new Map(), stems: found.stems };
        terms.set(found.key, term);
      }
      term.answers.add(index);
      term.surfaces.set(found.surface, (term.surfaces.get(found.surface) ?? 0) + 1);
    }
  });
  return terms;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function rank(a: Term, b: Term): number {
  return b.answers.size - a.answers.size || Number(b.isPhrase) - Number(a.isPhrase) || b.key.length - a.key.length || byText(a.key, b.key);
}

function labelOf(term: Term): string {
  const [surface] = [...term.surfaces.entries()].sort(([a, x], [b, y]) => y - x || byText(a, b))[0];
  return surface.charAt(0).toUpperCase() + surface.slice(1);
}

function isInside(answers: Set<number>, theme: Set<number>): boolean {
  for (const index of answers) if (!theme.has(index)) return false;
  return true;
}

/** Words (not phrases) other than the theme's own that at least two of its answers use, most used first. */
function relatedWords(term: Term, all: Term[]): string[] {
  return all
    .filter((other) => !other.isPhrase && !term.stems.includes(other.key))
    .map((other) => ({ other, shared: [...other.answers].filter((i) => term.answers.has(i)).length }))
    .filter(({ shared }) => shared >= MIN_SHARED)
    .sort((a, b) => b.shared - a.shared || rank(a.other, b.other))
    .slice(0, 2)
    .map(({ other }) => labelOf(other).toLowerCase());
}

export function extractThemes(answers: readonly string[]): ThemeAnalysis {
  const ranked = [...collectTerms(answers).values()].sort(rank);
  const chosen: Term[] = [];
  for (const term of ranked) {
    if (chosen.length === MAX_THEMES || term.answers.size < MIN_SHARED) break;
    if (chosen.some((theme) => isInside(term.answers, theme.answers))) continue;
    chosen.push(term);
  }
  const covered = new Set(chosen.flatMap((term) => [...term.answers]));
  return {
    total: answers.length,
    themes: chosen.map((term) => ({
      label: labelOf(term),
      answers: [...term.answers].sort((a, b) => a - b),
      frequency: frequencyBand(term.answers.size, answers.length),
      relatedWords: relatedWords(term, ranked),
    })),
    unthemed: answers.length - covered.size,
  };
}

/** "3 of 8 responses (38%)". */
export function shareText(count: number, total: number, noun = 'responses'): string {
  return `${count} of ${total} ${noun} (${percent(count, total)}%)`;
}

/** A quoted example answer of a theme: its first answer, shortened. */
export function exampleOf(theme: Theme, answers: readonly string[]): string {
  return `"${excerpt(answers[theme.answers[0]], 100)}"`;
}
