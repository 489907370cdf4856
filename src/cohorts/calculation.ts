/**
 * Counting a dynamic cohort and filling a static one, by walking the project's persons through
 * the engine. Small projects are done inside the request (on its transaction); larger ones in the
 * background, with `is_calculating: true` meanwhile and progress in the log.
 */
import type { Pool, ReadHandle } from '../db/pool.ts';
import type { UnitsOfWork, WriteTx } from '../db/unit-of-work.ts';
import type { CohortDefinition } from '../evaluation/index.ts';
import type { ChangeBus } from '../kernel/changes/bus.ts';
import { loadCohortDefinitions } from './definitions.ts';
import type { BackgroundJobs, JobLog } from '../kernel/jobs.ts';
import { countPersons, groupTypeMapping } from './population-store.ts';
import { cohortMatcher, personSubjects, type Matcher, type PopulationShared } from './population.ts';
import { addMembersById, finishCalculation, markCalculating, refreshStaticCount } from './store.ts';

/** Up to this many persons, a calculation runs inside the request. */
export const INLINE_PERSON_LIMIT = 50_000;
/** A progress line every this many persons, for runs larger than that. */
const PROGRESS_EVERY = 20_000;

export interface CalculationDeps {
  pool: Pool;
  units: UnitsOfWork;
  bus: ChangeBus;
  jobs: BackgroundJobs;
  log: JobLog;
}

export class CalculationStopped extends Error {
  constructor() {
    super('calculation stopped: the app is closing');
  }
}

/** The project's cohorts and group types, plus `extra` cohort definitions (probes), at one instant. */
export async function sharedFor(db: ReadHandle, projectId: number, extra: CohortDefinition[] = []): Promise<PopulationShared> {
  // Sequential: `db` may be a transaction's client, which runs one query at a time.
  const cohorts = await loadCohortDefinitions(db, projectId);
  const mapping = await groupTypeMapping(db, projectId);
  for (const definition of extra) cohorts.set(definition.id, definition);
  return { cohorts, groupTypeMapping: mapping, now: new Date() };
}

export interface WalkOptions {
  /** Persons without a distinct id are skipped (a flag hashes the distinct id). */
  needsDistinctId?: boolean;
  hashKeyFlags?: string[];
  stop?: () => boolean;
  /** Named in progress lines. */
  label: string;
  log?: JobLog;
  /** Receives the matching person ids of each batch. */
  onMatches?: (personIds: number[]) => Promise<void>;
}

/** Walks every person; answers how many matched. Throws CalculationStopped when told to stop. */
export async function walkPersons(db: ReadHandle, projectId: number, matcher: Matcher, shared: PopulationShared, options: WalkOptions): Promise<number> {
  let seen = 0;
  let matched = 0;
  let nextReport = PROGRESS_EVERY;
  for await (const batch of personSubjects(db, projectId, shared, { hashKeyFlags: options.hashKeyFlags, stop: options.stop })) {
    const ids: number[] = [];
    for (const { row, ctx } of batch) {
      if (options.needsDistinctId && row.distinct_ids.length === 0) continue;
      if (matcher(ctx)) ids.push(row.id);
    }
    seen += batch.length;
    matched += ids.length;
    if (options.onMatches && ids.length > 0) await options.onMatches(ids);
    if (seen >= nextReport) {
      options.log?.info(`${options.label}: ${seen} persons evaluated, ${matched} matched`);
      nextReport += PROGRESS_EVERY;
    }
  }
  if (options.stop?.()) throw new CalculationStopped();
  if (seen >= PROGRESS_EVERY) options.log?.info(`${options.label}: done, ${seen} persons evaluated, ${matched} matched`);
  return matched;
}

/** Whether a calculation over this project's persons may run inside the request. */
export async function fitsInline(db: ReadHandle, projectId: number): Promise<boolean> {
  return (await countPersons(db, projectId)) <= INLINE_PERSON_LIMIT;
}

/**
 * Counts a dynamic cohort. Inline: on `db` (the caller's transaction, so the cohort as just
 * written counts). Otherwise the cohort is marked calculating and the returned function, called
 * after the commit, starts the background count.
 */
export async function calculateCount(
  deps: CalculationDeps,
  db: WriteTx,
  projectId: number,
  cohortId: number,
): Promise<(() => void) | null> {
  const label = `cohort ${cohortId} count`;
  if (await fitsInline(db, projectId)) {
    const count = await walkPersons(db, projectId, cohortMatcher(cohortId), await sharedFor(db, projectId), { label });
    await finishCalculation(db, cohortId, count, false);
    return null;
  }
  await markCalculating(db, cohortId);
  return () =>
    deps.jobs.start(label, async () => {
      try {
        const shared = await sharedFor(deps.pool, projectId);
        const count = await walkPersons(deps.pool, projectId, cohortMatcher(cohortId), shared, {
          label,
          log: deps.log,
          stop: () => deps.jobs.stopRequested,
        });
        await deps.units.run(({ client }) => finishCalculation(client, cohortId, count, false));
      } catch (error) {
        await deps.units.run(({ client }) => finishCalculation(client, cohortId, null, true));
        throw error;
      }
    });
}

export interface FillSource {
  /** Null: the source matches nobody (a disabled flag), so no person is walked. */
  matcher: Matcher | null;
  /** Cohort definitions the matcher needs beyond the project's own. */
  extraCohorts?: CohortDefinition[];
  needsDistinctId: boolean;
  hashKeyFlags?: string[];
  label: string;
}

/**
 * Fills a static cohort with the persons `source` matches. Inline: on `db`, and the cohort's
 * count is final when this resolves. Otherwise the cohort is marked calculating and the returned
 * function, called after the commit, fills it in the background and publishes the change.
 */
export async function fillStaticCohort(
  deps: CalculationDeps,
  db: WriteTx,
  projectId: number,
  cohortId: number,
  source: FillSource,
): Promise<(() => void) | null> {
  const matcher = source.matcher;
  if (matcher === null || (await fitsInline(db, projectId))) {
    if (matcher !== null) {
      await walkPersons(db, projectId, matcher, await sharedFor(db, projectId, source.extraCohorts), {
        label: source.label,
        needsDistinctId: source.needsDistinctId,
        hashKeyFlags: source.hashKeyFlags,
        onMatches: (ids) => addMembersById(db, cohortId, ids),
      });
    }
    // The count of a static cohort is its number of members.
    await finishCalculation(db, cohortId, null, false);
    await refreshStaticCount(db, cohortId, false);
    return null;
  }
  await markCalculating(db, cohortId);
  return () =>
    deps.jobs.start(source.label, async () => {
      try {
        const shared = await sharedFor(deps.pool, projectId, source.extraCohorts);
        await walkPersons(deps.pool, projectId, matcher, shared, {
          label: source.label,
          log: deps.log,
          needsDistinctId: source.needsDistinctId,
          hashKeyFlags: source.hashKeyFlags,
          stop: () => deps.jobs.stopRequested,
          onMatches: (ids) => deps.units.run(({ client }) => addMembersById(client, cohortId, ids)),
        });
        await deps.units.run(async (unit) => {
          await finishCalculation(unit.client, cohortId, null, false);
          await refreshStaticCount(unit.client, cohortId, true);
          await deps.bus.publish(unit, { kind: 'cohort', projectId, id: cohortId });
        });
      } catch (error) {
        await deps.units.run(({ client }) => finishCalculation(client, cohortId, null, true));
        throw error;
      }
    });
}
