/**
 * One project as the SDK endpoints see it, built once per change and shared by every request: its
 * live flags in the engine's form, its cohorts and group types, what a person load must read
 * (static cohorts in use, experience continuity), and the definitions bodies (rendered on first use).
 */
import type { CohortDefinition, EvaluationFlag } from '../evaluation/index.ts';
import { displayFilters } from '../flags/derive.ts';
import type { FlagRecord } from '../flags/record.ts';
import { cohortClosure, cohortIdOf } from './cohorts.ts';
import { renderDefinitions, type RenderedDefinitions } from './definitions.ts';

/** A live (not deleted) flag: its record and its engine form (filters as the API shows them). */
export interface LiveFlag {
  record: FlagRecord;
  flag: EvaluationFlag;
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
  readonly cohorts: ReadonlyMap<number, CohortDefinition>;
  readonly groupTypeMapping: Readonly<Record<number, string>>;
  readonly groupTypeIndexes: ReadonlyMap<string, number>;
  /** Static cohorts the live flags use (directly or through dynamic cohorts): membership to read per person. */
  readonly staticCohortIds: readonly number[];
  /** Active live flags that keep experience continuity (hash-key overrides). */
  readonly continuityKeys: readonly string[];
  private readonly rendered = new Map<boolean, RenderedDefinitions>();

  constructor(
    readonly projectId: number,
    records: readonly FlagRecord[],
    extras: ProjectExtras,
  ) {
    this.flags = records.filter((record) => !record.deleted).map((record) => ({ record, flag: toEvaluationFlag(record) }));
    this.byKey = new Map(this.flags.map((live) => [live.record.key, live]));
    this.evaluationFlags = this.flags.map((live) => live.flag);
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
  definitions(sendCohorts: boolean): RenderedDefinitions {
    let rendered = this.rendered.get(sendCohorts);
    if (!rendered) {
      rendered = renderDefinitions(this, sendCohorts);
      this.rendered.set(sendCohorts, rendered);
    }
    return rendered;
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
