/**
 * One project as the SDK endpoints see it, built once per change and shared by every request: its
 * live flags in the engine's form, its cohorts and group types, what a person load must read
 * (static cohorts in use, experience continuity), and the definitions bodies (rendered on first use, gzipped once).
 */
import { FlagSet, type CohortDefinition, type EvaluationFlag } from '../evaluation/index.ts';
import { displayFilters } from '../flags/derive.ts';
import type { FlagRecord } from '../flags/record.ts';
import { cohortClosure, cohortIdOf } from './cohorts.ts';
import type { StoredBody } from '../kernel/http/etag.ts';
import { renderDefinitions } from './definitions.ts';
import { DetailFragments } from './detail-fragments.ts';
import type { LiveFlag } from './live-flag.ts';

/** The runtime a caller evaluates in (`evaluation_runtime` of `/flags`). */
export type Runtime = 'server' | 'client';

/** Whether a flag of `flagRuntime` is served to a caller of `runtime` (`all`/`both` flags match any). */
export function runtimeMatches(flagRuntime: string, runtime: Runtime | null | undefined): boolean {
  if (!runtime) return true;
  return flagRuntime === runtime || (flagRuntime !== 'server' && flagRuntime !== 'client');
}

export interface ProjectExtras {
  cohorts: ReadonlyMap<number, CohortDefinition>;
  /** Group type index → name. */
  groupTypeMapping: Readonly<Record<number, string>>;
}

export function toEvaluationFlag(record: FlagRecord): EvaluationFlag {
  return {
    id: record.id,
    key: record.key,
    active: record.active,
    deleted: record.deleted,
    version: record.version,
    filters: displayFilters(record.filters),
    ensure_experience_continuity: record.ensure_experience_continuity,
    bucketing_identifier: record.bucketing_identifier,
    evaluation_runtime: record.evaluation_runtime,
  };
}

export class ProjectView {
  /** Live flags, newest first (the order of my_flags). */
  readonly flags: readonly LiveFlag[];
  readonly byKey: ReadonlyMap<string, LiveFlag>;
  readonly evaluationFlags: readonly EvaluationFlag[];
  /** The engine's prepared form of the live flags, shared by every evaluation of this view. */
  readonly flagSet: FlagSet;
  /** Whether `flagSet.flags` are `flags`' engine forms in the same order (ids are unique). */
  readonly alignedWithFlagSet: boolean;
  readonly cohorts: ReadonlyMap<number, CohortDefinition>;
  readonly groupTypeMapping: Readonly<Record<number, string>>;
  readonly groupTypeIndexes: ReadonlyMap<string, number>;
  /** Static cohorts the live flags use (directly or through dynamic cohorts): membership to read per person. */
  readonly staticCohortIds: readonly number[];
  /** Active live flags that keep experience continuity (hash-key overrides). */
  readonly continuityKeys: readonly string[];
  private readonly rendered = new Map<boolean, StoredBody>();
  private readonly byRuntime = new Map<Runtime, readonly LiveFlag[]>();

  constructor(
    readonly projectId: number,
    records: readonly FlagRecord[],
    extras: ProjectExtras,
  ) {
    this.flags = records
      .filter((record) => !record.deleted)
      .map((record) => ({ record, flag: toEvaluationFlag(record), detail: new DetailFragments(record) }));
    this.byKey = new Map(this.flags.map((live) => [live.record.key, live]));
    this.evaluationFlags = this.flags.map((live) => live.flag);
    this.flagSet = new FlagSet(this.evaluationFlags);
    this.alignedWithFlagSet =
      this.flagSet.flags.length === this.evaluationFlags.length && this.flagSet.flags.every((flag, i) => flag === this.evaluationFlags[i]);
    this.cohorts = extras.cohorts;
    this.groupTypeMapping = extras.groupTypeMapping;
    this.groupTypeIndexes = new Map(Object.entries(extras.groupTypeMapping).map(([index, name]) => [name, Number(index)]));
    const used = cohortClosure(this.usedCohorts(), this.cohorts);
    this.staticCohortIds = [...used].filter((id) => this.cohorts.get(id)?.isStatic === true);
    this.continuityKeys = this.flags
      .filter((live) => live.record.active && live.record.ensure_experience_continuity === true)
      .map((live) => live.record.key);
  }

  /** The body of `GET /flags/definitions` (and local_evaluation), rendered once. */
  definitions(sendCohorts: boolean): StoredBody {
    let rendered = this.rendered.get(sendCohorts);
    if (!rendered) {
      rendered = renderDefinitions(this, sendCohorts);
      this.rendered.set(sendCohorts, rendered);
    }
    return rendered;
  }

  /** The live flags a caller of `runtime` is served, computed once per view. */
  flagsFor(runtime: Runtime): readonly LiveFlag[] {
    let flags = this.byRuntime.get(runtime);
    if (!flags) {
      flags = this.flags.filter((live) => runtimeMatches(live.record.evaluation_runtime, runtime));
      this.byRuntime.set(runtime, flags);
    }
    return flags;
  }

  private *usedCohorts(): Generator<number> {
    for (const { flag } of this.flags) {
      for (const group of [...(flag.filters.groups ?? []), ...(flag.filters.super_groups ?? [])]) {
        for (const property of group?.properties ?? []) {
          const id = property && typeof property === 'object' ? cohortIdOf(property) : null;
          if (id !== null) yield id;
        }
      }
    }
  }
}
