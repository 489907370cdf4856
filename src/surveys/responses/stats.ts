/** Per-survey and global statistics: the use cases behind the two stats routes. */
import type { Pool, ReadHandle } from '../../db/pool.ts';
import { isoUtc } from '../../kernel/time.ts';
import { requireSurvey } from '../read-store.ts';
import type { DateRange } from './dates.ts';
import { archivedUuidsOfProject, archivedUuidsOfSurvey } from './archive.ts';
import { presentStats, ZERO_RATES, type StatsBody } from './present.ts';
import { withReadSnapshot } from '../../db/read-snapshot.ts';
import { globalStatsFingerprint, type StatsCache } from './stats-cache.ts';
import {
  activeSurveyIds,
  allTimeNumbers,
  clampedWindow,
  fewEventsOutside,
  NO_NUMBERS,
  rawNumbers,
  subtractedNumbers,
} from './stats-store.ts';

/**
 * How the statistics and the counts read: on one snapshot (withReadSnapshot), so that totals and
 * the events subtracted from them agree even while a batch commits in between; JIT off (these
 * queries are estimated as expensive but run in milliseconds, and compiling would cost more).
 */
export const RESPONSE_READS = ['jit = off', "work_mem = '64MB'"] as const;

export interface StatsArgs {
  range: DateRange;
  excludeArchived: boolean;
}

export interface SurveyStatsBody extends StatsBody {
  survey_id: string;
  start_date: string | null;
  end_date: string | null;
}

/**
 * One survey inside its window (the dates clamped to its start, or creation, and its end). The
 * totals minus what lies outside when that is the smaller part (a survey's own window), else the
 * window's events directly. The arguments are parsed once the survey is found (404 before 400).
 */
export async function surveyStats(pool: Pool, projectId: number, rawId: string, parseArgs: () => StatsArgs): Promise<SurveyStatsBody> {
  const survey = await requireSurvey(pool, projectId, rawId);
  const { range, excludeArchived } = parseArgs();
  const numbers = await withReadSnapshot(pool, async (client) => {
    const window = await clampedWindow(client, projectId, survey.id, range.from?.iso ?? null, range.to?.iso ?? null);
    if (window.empty) return NO_NUMBERS;
    const fewOutside = await fewEventsOutside(client, projectId, survey.id, window);
    if (fewOutside === null) return NO_NUMBERS;
    const archived = excludeArchived ? await archivedUuidsOfSurvey(client, projectId, survey.id) : [];
    return fewOutside
      ? subtractedNumbers(client, projectId, survey.id, window, archived)
      : rawNumbers(client, projectId, [survey.id], window, archived);
  }, RESPONSE_READS);
  return { ...presentStats(numbers), survey_id: rawId, start_date: isoUtc(survey.start_date), end_date: isoUtc(survey.end_date) };
}

export interface GlobalStatsCaching {
  cache: StatsCache<StatsBody>;
  /** Compute afresh (the request said `Cache-Control: no-cache`); the answer is still kept. */
  bypass: boolean;
}

/**
 * Every survey of the project that is not archived (drafts too), in the given dates only. Persons
 * count once across the surveys. Archived responses (any survey's) are left out when asked.
 * Answers are kept in `caching.cache` under the fingerprint of their inputs (stats-cache.ts).
 */
export async function globalStats(pool: Pool, projectId: number, { range, excludeArchived }: StatsArgs, caching: GlobalStatsCaching): Promise<StatsBody> {
  return withReadSnapshot(pool, async (client) => {
    const key = `${projectId}|${range.from?.iso ?? ''}|${range.to?.iso ?? ''}|${excludeArchived}`;
    const fingerprint = await globalStatsFingerprint(client, projectId, excludeArchived);
    const cached = caching.bypass ? undefined : caching.cache.get(key, fingerprint);
    if (cached) return cached;
    const body = await computeGlobalStats(client, projectId, { range, excludeArchived });
    caching.cache.set(key, fingerprint, body);
    return body;
  }, RESPONSE_READS);
}

async function computeGlobalStats(client: ReadHandle, projectId: number, { range, excludeArchived }: StatsArgs): Promise<StatsBody> {
  const surveyIds = await activeSurveyIds(client, projectId);
  if (surveyIds.length === 0) return { stats: {}, rates: { ...ZERO_RATES } };
  const archived = excludeArchived ? await archivedUuidsOfProject(client, projectId) : [];
  const numbers =
    range.from === null && range.to === null && archived.length === 0
      ? await allTimeNumbers(client, projectId, surveyIds)
      : await rawNumbers(client, projectId, surveyIds, { from: range.from?.iso ?? null, to: range.to?.iso ?? null }, archived);
  return presentStats(numbers);
}
