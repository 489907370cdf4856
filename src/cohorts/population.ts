/**
 * Walks the persons (or groups) of a project in bounded batches and hands each one to the flag
 * evaluation engine as an `EvaluationContext`. Nothing here matches properties: the engine does.
 * Used by cohort counts and members, static cohorts built from a flag, and the blast radius.
 */
import type { ReadHandle } from '../db/pool.ts';
import {
  evaluateFlags,
  flagEvaluator,
  FlagSet,
  type CohortDefinition,
  type EvaluationContext,
  type EvaluationFlag,
} from '../evaluation/index.ts';
import type { FlagProperty } from '../targeting/types.ts';
import { groupBatch, hashKeyOverrides, personBatch, staticMemberships } from './population-store.ts';
import type { MemberRow } from './store.ts';

export const BATCH_SIZE = 2_000;

export interface PersonSubject {
  row: MemberRow;
  ctx: EvaluationContext;
}

/** What every person of one run shares: the project's cohorts, group types and the clock. */
export interface PopulationShared {
  cohorts: Map<number, CohortDefinition>;
  groupTypeMapping: Record<number, string>;
  now: Date;
}

export interface ScanOptions {
  batchSize?: number;
  /** Flags whose experience-continuity hash keys are loaded for each person. */
  hashKeyFlags?: string[];
  /** Checked between batches; true ends the walk early. */
  stop?: () => boolean;
}

/**
 * The persons of the project, a batch at a time, each with the context the engine evaluates: the
 * stored properties, the person's first distinct id (the one hashed), static cohort memberships
 * and hash-key overrides. Memory stays bounded by the batch size.
 */
export async function* personSubjects(
  db: ReadHandle,
  projectId: number,
  shared: PopulationShared,
  options: ScanOptions = {},
): AsyncGenerator<PersonSubject[]> {
  const size = options.batchSize ?? BATCH_SIZE;
  const wantsStatic = [...shared.cohorts.values()].some((cohort) => cohort.isStatic);
  let afterId = 0;
  for (;;) {
    if (options.stop?.()) return;
    const rows = await personBatch(db, projectId, afterId, size);
    if (rows.length === 0) return;
    afterId = rows[rows.length - 1].id;
    const ids = rows.map((row) => row.id);

    const memberships = new Map<number, Set<number>>();
    if (wantsStatic) {
      for (const { person_id, cohort_id } of await staticMemberships(db, projectId, ids)) {
        let set = memberships.get(person_id);
        if (!set) memberships.set(person_id, (set = new Set()));
        set.add(cohort_id);
      }
    }
    const overrides = new Map<number, Record<string, string>>();
    for (const { person_id, feature_flag_key, hash_key } of await hashKeyOverrides(db, projectId, ids, options.hashKeyFlags ?? [])) {
      const forPerson = overrides.get(person_id) ?? {};
      forPerson[feature_flag_key] = hash_key;
      overrides.set(person_id, forPerson);
    }

    yield rows.map((row) => {
      const member = memberships.get(row.id);
      return {
        row,
        ctx: {
          distinctId: row.distinct_ids[0] ?? row.uuid,
          personProperties: row.properties ?? {},
          groups: {},
          groupProperties: {},
          groupTypeMapping: shared.groupTypeMapping,
          cohorts: shared.cohorts,
          staticCohortMembership: (cohortId: number) => member?.has(cohortId) ?? false,
          hashKeyOverrides: overrides.get(row.id),
          now: shared.now,
        },
      };
    });
    if (rows.length < size) return;
  }
}

/** The groups of one type, a batch at a time, each as the context a group flag is evaluated in. */
export async function* groupSubjects(
  db: ReadHandle,
  projectId: number,
  groupTypeIndex: number,
  shared: PopulationShared,
  options: ScanOptions = {},
): AsyncGenerator<EvaluationContext[]> {
  const size = options.batchSize ?? BATCH_SIZE;
  const groupType = shared.groupTypeMapping[groupTypeIndex];
  if (groupType === undefined) return;
  let afterKey: string | null = null;
  for (;;) {
    if (options.stop?.()) return;
    const rows = await groupBatch(db, projectId, groupTypeIndex, afterKey, size);
    if (rows.length === 0) return;
    afterKey = rows[rows.length - 1].group_key;
    yield rows.map((row) => ({
      distinctId: row.group_key,
      personProperties: {},
      groups: { [groupType]: row.group_key },
      groupProperties: { [groupType]: row.group_properties ?? {} },
      groupTypeMapping: shared.groupTypeMapping,
      cohorts: shared.cohorts,
      now: shared.now,
    }));
    if (rows.length < size) return;
  }
}

// ---------------------------------------------------------------------------------------------
// Questions put to the engine.

export type Matcher = (ctx: EvaluationContext) => boolean;

/** A flag that exists only for one question: one condition set, no rollout. */
function probeFlag(key: string, properties: FlagProperty[], aggregation: number | null = null): EvaluationFlag {
  return {
    id: -1,
    key,
    active: true,
    deleted: false,
    version: 0,
    filters: { groups: [{ properties, rollout_percentage: null }], aggregation_group_type_index: aggregation },
    ensure_experience_continuity: false,
    bucketing_identifier: null,
    evaluation_runtime: 'all',
  };
}

/** Is the person in this cohort? (Cohort membership as a flag condition decides it.) */
export function cohortMatcher(cohortId: number): Matcher {
  const evaluate = flagEvaluator(probeFlag(`$cohort_${cohortId}`, [{ key: 'id', type: 'cohort', value: cohortId, operator: 'in' }]));
  return (ctx) => evaluate(ctx).enabled;
}

/**
 * Would a condition set with these properties match (rollout left aside)? Flag conditions among
 * them are resolved against `flags` (the project's live flags).
 */
export function conditionMatcher(properties: FlagProperty[], aggregation: number | null, flags: readonly EvaluationFlag[]): Matcher {
  const flag = probeFlag('$blast_radius', properties, aggregation);
  if (!properties.some((property) => property.type === 'flag')) return enabledBy(flag);
  return enabledAmong(flag, [...flags.filter((f) => f.key !== flag.key), flag]);
}

/** Is this flag on for the person? `flags` holds the flag and the flags it depends on. */
export function flagMatcher(flag: EvaluationFlag, flags: readonly EvaluationFlag[]): Matcher {
  const dependsOnOthers = flags.some((other) => other.id !== flag.id);
  return dependsOnOthers ? enabledAmong(flag, flags) : enabledBy(flag);
}

// Matchers run once per person of a population: flags are prepared (and indexed) once, here.
function enabledBy(flag: EvaluationFlag): Matcher {
  const evaluate = flagEvaluator(flag);
  return (ctx) => evaluate(ctx).enabled;
}

function enabledAmong(flag: EvaluationFlag, flags: readonly EvaluationFlag[]): Matcher {
  const set = new FlagSet(flags);
  return (ctx) => evaluateFlags(set, ctx, { onlyKeys: [flag.key] }).get(flag.key)?.enabled === true;
}
