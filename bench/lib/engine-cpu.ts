/**
 * The flag engine alone, in this process: the `flag-cpu` flags (ids 1…n, cohorts 1…3) prepared once
 * in a FlagSet as the SDK views keep them, then every flag evaluated for one person after another,
 * timed with this process's CPU time (user + system), which other load on the machine barely moves.
 * No HTTP, no database, no rendering: what src/evaluation/ costs per flag.
 */
import { createHash } from 'node:crypto';
import { FlagSet, type CohortDefinition, type EvaluationContext, type EvaluationFlag, type PropertyGroup } from '../../src/evaluation/index.ts';
import { displayFilters } from '../../src/flags/derive.ts';
import type { FlagFilters } from '../../src/targeting/types.ts';
import { COHORTS, cpuFlags, cpuPeople, filtersWithIds, type CpuPerson } from '../scenarios/flag-cpu-flags.ts';

export interface EngineCpu {
  flags: number;
  evaluations: number;
  flagsEvaluated: number;
  cpuMs: number;
  /** CPU µs per flag evaluated. */
  microsPerFlag: number;
  /** A hash of every answer (enabled, variant, reason, payload) for 500 people: the same before and after an engine change that keeps behaviour. */
  answersFingerprint: string;
}

export function engineFlags(count: number): { flags: EvaluationFlag[]; cohorts: Map<number, CohortDefinition> } {
  const cohortIds = COHORTS.map((_, i) => i + 1);
  const generated = cpuFlags(count);
  const flagIds = generated.map((_, i) => i + 1);
  const flags = generated.map((flag, i) => ({
    id: i + 1,
    key: flag.key,
    active: flag.active,
    deleted: false,
    version: 1,
    filters: displayFilters(filtersWithIds(flag, cohortIds, flagIds) as FlagFilters),
    ensure_experience_continuity: false,
    bucketing_identifier: null,
    evaluation_runtime: 'all',
  }));
  const cohorts = new Map<number, CohortDefinition>(
    COHORTS.map((cohort, i) => [i + 1, { id: i + 1, isStatic: false, filters: cohort.filters.properties as PropertyGroup }]),
  );
  return { flags, cohorts };
}

function contextOf(person: CpuPerson, cohorts: Map<number, CohortDefinition>): EvaluationContext {
  return {
    distinctId: person.distinctId,
    deviceId: null,
    personProperties: { ...person.properties },
    groups: {},
    groupProperties: {},
    groupTypeMapping: {},
    cohorts,
    staticCohortMembership: () => false,
    now: new Date(),
  };
}

/** `evaluations` people (after `warmup` unmeasured ones), every flag each. */
export function measureEngine(flagCount: number, evaluations: number, warmup = Math.min(200, evaluations)): EngineCpu {
  const { flags, cohorts } = engineFlags(flagCount);
  const set = new FlagSet(flags);
  const people = cpuPeople(2_000);
  const run = (count: number, offset: number) => {
    for (let i = 0; i < count; i++) set.evaluate(contextOf(people[(offset + i) % people.length], cohorts));
  };
  const digest = createHash('sha256');
  for (const person of people.slice(0, 500)) {
    for (const r of set.evaluate(contextOf(person, cohorts))) {
      digest.update(`${r.key}|${r.enabled}|${r.variant}|${r.reason.code}|${r.reason.condition_index}|${r.reason.description}|${r.payload}\n`);
    }
  }
  run(warmup, 0);
  const before = process.cpuUsage();
  run(evaluations, warmup);
  const used = process.cpuUsage(before);
  const cpuMs = (used.user + used.system) / 1000;
  return {
    flags: set.flags.length,
    evaluations,
    flagsEvaluated: evaluations * set.flags.length,
    cpuMs: Math.round(cpuMs * 10) / 10,
    microsPerFlag: Math.round(((cpuMs * 1000) / (evaluations * set.flags.length)) * 1000) / 1000,
    answersFingerprint: digest.digest('hex').slice(0, 16),
  };
}
