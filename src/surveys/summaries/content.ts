/**
 * The text of `summarize_responses`: PostHog's model output — an overview, one to
 * five themes with a frequency band, a key insight — computed locally, and its Markdown layout.
 */
import type { SurveyQuestion } from './questions.ts';
import { oneDecimal, type RatingStats } from './stats.ts';
import { excerpt, percent, plural } from './text.ts';
import { exampleOf, shareText, type ThemeAnalysis, type ThemeFrequency } from './themes.ts';

export interface SummaryTheme {
  theme: string;
  description: string;
  frequency: ThemeFrequency;
}

export interface SummaryModel {
  overview: string;
  themes: SummaryTheme[];
  keyInsight: string;
}

/** Overview, blank line, `**Key Themes:**` with one `- **theme** (Band): description` line each, then the key insight. */
export function renderSummary(model: SummaryModel): string {
  const lines = model.themes.map((t) => `- **${t.theme}** (${t.frequency}): ${t.description}`);
  return `${model.overview}\n\n**Key Themes:**\n${lines.join('\n')}\n\n**Key Insight:** ${model.keyInsight}`;
}

const quoted = (question: SurveyQuestion) => `"${excerpt(question.text, 120)}"`;

/** Themes of open answers (free text, or what was written in next to a choice). */
export function openAnswersSummary(question: SurveyQuestion, answers: readonly string[], analysis: ThemeAnalysis): SummaryModel {
  const n = answers.length;
  const intro = `${plural(n, 'response')} to ${quoted(question)} ${n === 1 ? 'was' : 'were'} analysed.`;
  if (analysis.themes.length === 0) {
    return {
      overview: `${intro} No topic is shared by two or more responses.`,
      themes: [
        {
          theme: 'Individual feedback',
          description: `${n === 1 ? 'The response raises' : `Each of the ${n} responses raises`} its own point. Example: "${excerpt(answers[0], 100)}"`,
          frequency: 'Rare',
        },
      ],
      keyInsight: 'No theme recurs; the responses are best read individually.',
    };
  }
  const themes = analysis.themes;
  const leading = themes.slice(0, 3).map((t) => `${t.label} (${percent(t.answers.length, n)}%)`);
  const list = leading.length === 1 ? leading[0] : `${leading.slice(0, -1).join(', ')} and ${leading[leading.length - 1]}`;
  const unthemed = analysis.unthemed > 0 ? ` ${shareText(analysis.unthemed, n)} ${analysis.unthemed === 1 ? 'shares' : 'share'} no theme with others.` : '';
  const [first, second] = themes;
  const next = second ? ` Next comes ${second.label} (${percent(second.answers.length, n)}%).` : '';
  return {
    overview: `${intro} ${themes.length === 1 ? 'The main theme is' : 'The main themes are'} ${list}.${unthemed}`,
    themes: themes.map((t) => {
      const related = t.relatedWords.length === 0 ? '' : `, often with ${t.relatedWords.map((w) => `"${w}"`).join(' and ')}`;
      return {
        theme: t.label,
        description: `${shareText(t.answers.length, n)} mention ${t.label.toLowerCase()}${related}. Example: ${exampleOf(t, answers)}`,
        frequency: t.frequency,
      };
    }),
    keyInsight: `${first.label} is the most frequent theme: ${shareText(first.answers.length, n)} raise it.${next}`,
  };
}

function npsInsight(score: number): string {
  if (score > 0) return `Promoters outnumber detractors, for an NPS of ${score}.`;
  if (score < 0) return `Detractors outnumber promoters, for an NPS of ${score}.`;
  return 'Promoters and detractors balance out, for an NPS of 0.';
}

/** The average, the bands of the scale (promoters, passives, detractors on 0–10) and the NPS. */
export function ratingSummary(question: SurveyQuestion, stats: RatingStats): SummaryModel {
  const n = stats.count;
  let overview = `${plural(n, 'rating')} of ${quoted(question)} average ${oneDecimal(stats.average)} out of ${stats.scale}.`;
  if (stats.nps) {
    const { score, promoters, passives, detractors } = stats.nps;
    overview += ` NPS is ${score}: ${plural(promoters, 'promoter')}, ${plural(passives, 'passive')} and ${plural(detractors, 'detractor')}.`;
  }
  const largest = [...stats.bands].sort((a, b) => b.count - a.count)[0];
  return {
    overview,
    themes: stats.bands.map((band) => ({
      theme: band.label,
      description: `${shareText(band.count, n, 'ratings')} ${band.count === 1 ? 'is' : 'are'} ${band.range}.`,
      frequency: band.frequency,
    })),
    keyInsight: stats.nps
      ? npsInsight(stats.nps.score)
      : `The largest group is ${largest.label.toLowerCase()}: ${shareText(largest.count, n, 'ratings')}.`,
  };
}
