/**
 * The flag definitions server SDKs evaluate locally:
 * `{flags, group_type_mapping, cohorts}`.
 *
 * - Flags: every live flag, inactive ones included, except remote-configuration flags; PostHog's
 *   minimal shape. Flag-dependency properties name the dependency by KEY and carry its
 *   `dependency_chain` (`[]` when it is missing or in a cycle), in condition sets and in cohorts.
 * - Cohorts: with `send_cohorts`, every dynamic cohort the flags use, nested ones included; static
 *   cohorts are never sent (the SDK then asks the server). Without it, `{}` and the flags as they
 *   are (an SDK cannot evaluate their cohort conditions and asks the server); PostHog's expansion
 *   of a single simple cohort into person properties is not done.
 */
import { dependencyChains, type CohortDefinition, type EvaluationFlag, type PropertyGroup } from '../evaluation/index.ts';
import { FlagIndex } from '../evaluation/dependencies.ts';
import { simpleRolloutPercentage } from '../flags/derive.ts';
import type { FlagRecord } from '../flags/record.ts';
import { StoredBody } from '../kernel/http/etag.ts';
import type { FlagFilters, FlagGroup, FlagProperty } from '../targeting/types.ts';
import { cohortClosure, cohortIdOf } from './cohorts.ts';
import type { LiveFlag } from './live-flag.ts';

/** What the definitions are rendered from: a project's view (project-view.ts). */
export interface DefinitionsSource {
  flags: readonly LiveFlag[];
  evaluationFlags: readonly EvaluationFlag[];
  cohorts: ReadonlyMap<number, CohortDefinition>;
  groupTypeMapping: Readonly<Record<number, string>>;
}

/** `both` and `all` mean the same; SDKs are told `all`. */
export function sdkRuntime(runtime: string): string {
  return runtime === 'both' ? 'all' : runtime;
}

/** PostHog's minimal flag serializer: the flag summary surveys and SDKs show, with these filters. */
export function minimalFlagFields(record: FlagRecord, filters: FlagFilters) {
  return {
    id: record.id,
    team_id: record.project_id,
    name: record.name,
    key: record.key,
    filters,
    deleted: record.deleted,
    active: record.active,
    ensure_experience_continuity: record.ensure_experience_continuity ?? false,
    has_encrypted_payloads: record.has_encrypted_payloads ?? false,
    version: record.version,
    evaluation_runtime: sdkRuntime(record.evaluation_runtime),
    bucketing_identifier: record.bucketing_identifier ?? 'distinct_id',
    evaluation_tags: record.evaluation_tags,
    evaluation_contexts: record.evaluation_tags,
  };
}

/** The minimal flag plus what current SDKs read. */
export function minimalFlag(live: LiveFlag, filters: FlagFilters = live.flag.filters): Record<string, unknown> {
  return {
    ...minimalFlagFields(live.record, filters),
    rollout_percentage: simpleRolloutPercentage(live.flag.filters),
    has_experiment: false,
  };
}

/**
 * A flag with `feature_enrollment` in the terms server SDKs evaluate (they do not know the
 * marker): opted in (`true`/"true") matches first; every other condition set applies only while
 * the property is not set, so an opt-out is false. Without the property the SDK cannot decide
 * locally and asks the server, which has the person's stored properties.
 */
export function enrollmentAsConditions(key: string, filters: FlagFilters): FlagFilters {
  if ((filters as FlagFilters & { feature_enrollment?: unknown }).feature_enrollment !== true) return filters;
  const property = `$feature_enrollment/${key}`;
  const notSet: FlagProperty = { key: property, type: 'person', operator: 'is_not_set', value: 'is_not_set' };
  const enrolled: FlagGroup = { properties: [{ key: property, type: 'person', operator: 'exact', value: ['true'] }], rollout_percentage: 100 };
  const groups = (filters.groups ?? []).map((group) => ({ ...group, properties: [...(group.properties ?? []), notSet] }));
  return { ...filters, groups: [enrolled, ...groups] };
}

/** Rewrites `type: "flag"` properties from the stored flag id to the flag key with its chain. */
class DependencyRewriter {
  private readonly index: FlagIndex;
  private readonly chains: Map<number, string[]>;

  constructor(view: DefinitionsSource) {
    this.index = new FlagIndex(view.evaluationFlags);
    this.chains = dependencyChains(view.evaluationFlags);
  }

  property(property: FlagProperty): FlagProperty {
    if (!property || typeof property !== 'object' || property.type !== 'flag') return property;
    const target = this.index.resolve(property.key);
    if (!target) return { ...property, key: String(property.key), dependency_chain: [] };
    return { ...property, key: target.key, dependency_chain: this.chains.get(target.id) ?? [] };
  }

  group(group: FlagGroup): FlagGroup {
    if (!group || typeof group !== 'object' || !Array.isArray(group.properties)) return group;
    if (!group.properties.some((property) => property?.type === 'flag')) return group;
    return { ...group, properties: group.properties.map((property) => this.property(property)) };
  }

  filters(filters: FlagFilters): FlagFilters {
    if (!Array.isArray(filters.groups)) return filters;
    return { ...filters, groups: filters.groups.map((group) => this.group(group)) };
  }

  propertyGroup(group: PropertyGroup): PropertyGroup {
    return {
      ...group,
      values: group.values.map((value) =>
        value && typeof value === 'object' && Array.isArray((value as PropertyGroup).values)
          ? this.propertyGroup(value as PropertyGroup)
          : this.property(value as FlagProperty),
      ),
    };
  }
}

function cohortsOf(flags: readonly LiveFlag[]): number[] {
  const ids: number[] = [];
  for (const { flag } of flags) {
    for (const group of flag.filters.groups ?? []) {
      for (const property of group?.properties ?? []) {
        const id = property && typeof property === 'object' ? cohortIdOf(property) : null;
        if (id !== null) ids.push(id);
      }
    }
  }
  return ids;
}

export function definitionsBody(view: DefinitionsSource, sendCohorts: boolean): Record<string, unknown> {
  const rewriter = new DependencyRewriter(view);
  const served = view.flags.filter((live) => live.record.is_remote_configuration !== true).sort((a, b) => a.record.id - b.record.id);
  const cohorts: Record<string, PropertyGroup> = {};
  if (sendCohorts) {
    const used = [...cohortClosure(cohortsOf(served), view.cohorts)].sort((a, b) => a - b);
    for (const id of used) {
      const cohort = view.cohorts.get(id);
      if (cohort && !cohort.isStatic) cohorts[String(id)] = rewriter.propertyGroup(cohort.filters);
    }
  }
  return {
    flags: served.map((live) => minimalFlag(live, enrollmentAsConditions(live.record.key, rewriter.filters(live.flag.filters)))),
    group_type_mapping: Object.fromEntries(Object.entries(view.groupTypeMapping).map(([index, name]) => [String(index), name])),
    cohorts,
  };
}

/** The body as served: UTF-8 bytes, ETag and (made once, when first asked) gzip. */
export function renderDefinitions(view: DefinitionsSource, sendCohorts: boolean): StoredBody {
  return new StoredBody(JSON.stringify(definitionsBody(view, sendCohorts)));
}

