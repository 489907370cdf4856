/** Rating averages, NPS and choice distributions: the numbers the local summaries state. */
import { frequencyBand, type ThemeFrequency } from './themes.ts';
import { answerTexts, type SurveyQuestion } from './questions.ts';
import { percent } from './text.ts';

export interface NpsBreakdown {
  /** % promoters − % detractors, rounded to a whole number (−100..100). */
  score: number;
  promoters: number;
  passives: number;
  detractors: number;
}

export interface RatingBand {
  label: string;
  /** Which ratings fall in it, in words ("9 or 10"). */
  range: string;
  count: number;
  frequency: ThemeFrequency;
}

export interface RatingStats {
  count: number;
  average: number;
  scale: number;
  /** Only on a 0–10 scale: promoters 9–10, passives 7–8, detractors 0–6. */
  nps: NpsBreakdown | null;
  /** Non-empty bands, best first. */
  bands: RatingBand[];
}

/** One decimal, always shown: `7.6`, `8.0`. */
export const oneDecimal = (value: number) => (Math.round(value * 10) / 10).toFixed(1);

function bandsFor(values: number[], scale: number): Array<Omit<RatingBand, 'frequency'>> {
  const count = (test: (v: number) => boolean) => values.filter(test).length;
  if (scale === 10) {
    return [
      { label: 'Promoters', range: '9 or 10', count: count((v) => v >= 9) },
      { label: 'Passives', range: '7 or 8', count: count((v) => v >= 7 && v < 9) },
      { label: 'Detractors', range: '6 or lower', count: count((v) => v < 7) },
    ];
  }
  // Other scales: above, at and below the middle (the middle exists on odd scales only).
  const middle = (scale + 1) / 2;
  const bands = [{ label: 'High ratings', range: `above ${middle}`, count: count((v) => v > middle) }];
  if (Number.isInteger(middle)) bands.push({ label: 'Neutral ratings', range: `${middle}`, count: count((v) => v === middle) });
  bands.push({ label: 'Low ratings', range: `below ${middle}`, count: count((v) => v < middle) });
  return bands;
}

export function ratingStats(values: number[], scale: number): RatingStats {
  const count = values.length;
  const average = count === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / count;
  let nps: NpsBreakdown | null = null;
  if (scale === 10 && count > 0) {
    const promoters = values.filter((v) => v >= 9).length;
    const detractors = values.filter((v) => v < 7).length;
    // `|| 0` turns a rounded −0 into 0.
    const score = Math.round((100 * (promoters - detractors)) / count) || 0;
    nps = { score, promoters, passives: count - promoters - detractors, detractors };
  }
  const bands = bandsFor(values, scale)
    .filter((band) => band.count > 0)
    .map((band) => ({ ...band, frequency: frequencyBand(band.count, count) }));
  return { count, average, scale, nps, bands };
}

export interface ChoiceShare {
  /** A predefined choice, or "Other" for everything written in. */
  choice: string;
  count: number;
  /** Whole percent of the respondents who answered the question. */
  percent: number;
}

export interface ChoiceDistribution {
  respondents: number;
  /** Most chosen first; ties in the question's order, "Other" last. */
  shares: ChoiceShare[];
}

export const OTHER_CHOICE = 'Other';

/** Each respondent counts once per choice (multiple choice answers are lists). */
export function choiceDistribution(answers: unknown[], question: SurveyQuestion): ChoiceDistribution {
  const counts = new Map<string, number>();
  let respondents = 0;
  for (const answer of answers) {
    const picked = new Set(answerTexts(answer).map((text) => (question.choices.includes(text) ? text : OTHER_CHOICE)));
    if (picked.size === 0) continue;
    respondents += 1;
    for (const choice of picked) counts.set(choice, (counts.get(choice) ?? 0) + 1);
  }
  const order = (choice: string) => (choice === OTHER_CHOICE && !question.choices.includes(choice) ? question.choices.length : question.choices.indexOf(choice));
  const shares = [...counts.entries()]
    .map(([choice, count]) => ({ choice, count, percent: percent(count, respondents) }))
    .sort((a, b) => b.count - a.count || order(a.choice) - order(b.choice));
  return { respondents, shares };
}
