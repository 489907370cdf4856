/**
 * Generated flags, cohorts and people for the differential test. Flags are built in the stored
 * form (flag dependencies by id, condition sets with an override first) and turned into the SDK
 * definitions form (dependency keys rewritten to flag keys, `dependency_chain` added) the way the
 * definitions endpoint will serve them.
 *
 * Profiles: `current` uses everything; `legacy` (posthog-node 5.29.3) leaves out what that
 * version is known to read differently from the current SDK and from us (see LEGACY_DIFFERENCES).
 */
import { dependencyChains, type CohortDefinition, type EvaluationFlag, type PropertyGroup } from '../../../src/evaluation/index.ts';
import { overridesFirst } from '../../../src/flags/derive.ts';
import type { FlagFilters, FlagGroup, FlagProperty } from '../../../src/targeting/types.ts';
import { Random } from './random.ts';
import type { SdkPerson } from './sdk.ts';

export type Profile = 'current' | 'legacy';

/**
 * What the SDK is expected to do with a flag: always decide it, never, depending on the person,
 * or anything (random conditions may use only operators the SDK leaves to the server).
 */
export type Expectation = 'resolved' | 'unresolved' | 'mixed' | 'any';

/**
 * How posthog-node 5.29.3 differs from the current SDK (and from us). The legacy profile avoids
 * these inputs; the probe test shows each one against the real old SDK.
 */
export const LEGACY_DIFFERENCES = [
  'null property values: only is_not accepts them (is_set on null is false; icontains, regex, exact fail)',
  'gt/gte/lt/lte with a text property value compare as text ("10" < "9"); a non-numeric condition value never matches a number',
  'exact/is_not with a boolean-like condition value compare texts, not truth values ("false" vs "no" fails)',
  'exact/is_not against lists and objects use String() ("a,b"), not JSON',
  'is_not_set is never decided locally',
  'relative dates in months/years overflow the calendar (31 March − 1m = 2/3 March) instead of clamping',
  'an OR cohort group without values matches; flag dependencies inside cohorts are skipped',
  'not_in on a cohort is read as in',
  'holdout ({id, exclusion_percentage}), early_exit and per-condition aggregation are ignored',
] as const;

export const GROUP_TYPES: Record<number, string> = { 0: 'company', 1: 'project' };
const DAY = 86_400_000;

export interface Scenario {
  flags: EvaluationFlag[];
  cohorts: Map<number, CohortDefinition>;
  expectations: Map<string, Expectation>;
  definitions: { flags: unknown[]; group_type_mapping: Record<string, string>; cohorts: Record<string, unknown> };
}

type Pools = Record<string, unknown[]>;

function propertyPools(profile: Profile, now: number): Pools {
  const legacy = profile === 'legacy';
  const withNull = (values: unknown[]) => (legacy ? values : [...values, null]);
  // Half a day off any whole-day (and whole-month) boundary, so a relative date never sits on one.
  const ago = (days: number) => new Date(now - (days + 0.5) * DAY).toISOString();
  const signup: unknown[] = [0, 1, 3, 6, 8, 13, 15, 29, 31, 45, 59, 61, 200, 364, 366, 800].map(ago);
  signup.push('2023-06-15', '2023-06-15T00:00:00Z', '2023-12-31T23:00:00+02:00', '2024-01-05 10:00:00');
  signup.push('Mon, 01 Jan 2024 00:00:00 GMT', now - 10.5 * DAY, now - 400.5 * DAY);
  signup.push('garbage', String(Math.floor((now - 40.5 * DAY) / 1000)));
  return {
    plan: withNull(['free', 'pro', 'PRO', 'Pro ', 'enterprise']),
    email: withNull(['alice@example.com', 'BOB@Example.COM', 'carol@spam.io', 'dave@test.org', '']),
    name: ['Alice', 'alice', 'BOB', 'bob123', 'Zoë', 'x-ray'],
    age: legacy ? [5, 17, 18, 18.5, 30, 64, 99] : [5, 17, 18, 18.5, 30, 64, 99, '18', '9', '100', '17.9', 'abc', true, null],
    score: legacy ? [0, 1.5, 2.25, -1, 10] : [0, 1.5, 2.25, '3.5', '10', 'n/a', -1, null],
    beta: legacy
      ? [true, false, 'true', 'TRUE', 'false', 'False']
      : [true, false, 'true', 'TRUE', 'false', 'False', 'yes', 0, 1, null, ['true'], []],
    country: ['US', 'us', 'DE', 'de', 'FR', 'GB', 'United States'],
    app_version: ['1.2.3', '1.2.10', '1.10.0', 'v2.0.1', '0.9.9', '0.0.3', '1.2.3-beta.1', '2.0.0+build', 'banana', '1.02.3', '3', '3.1'],
    signup,
    tags: [['a', 'b'], ['x'], [], 'a,b'],
    meta: [{ a: 1.5, b: 'x' }, 'plain'],
  };
}

type OperatorValues = [operator: string, values: unknown[]];

function conditionPools(profile: Profile): Record<string, OperatorValues[]> {
  const current = profile === 'current';
  const relative = ['-7d', '-30d', '-2w', '-30h', '2024-01-01', '2023-06-15T00:00:00Z', ...(current ? ['-1m', '-6m', '-1y'] : [])];
  return {
    plan: [
      ['exact', ['pro', 'enterprise', ['pro', 'free'], 'PRO ']],
      ['is_not', ['pro', ['free', 'enterprise']]],
      ['icontains', ['pro', 'R']],
      ['not_icontains', ['free', 'nul']],
      ['regex', ['^pro$', '^P', 'e$']],
      ['not_regex', ['^pro$']],
      ['is_set', ['is_set']],
      ['is_not_set', ['is_not_set']],
      ['icontains_multi', [['pro', 'ent']]],
    ],
    email: [
      ['icontains', ['example', 'SPAM', '@']],
      ['not_icontains', ['spam']],
      ['regex', ['example\\.com$', '^[a-z]+@', '(?i)bob', '[', 'B.B']],
      ['not_regex', ['example\\.com$', '[']],
      ['exact', ['alice@example.com']],
      ['is_set', ['is_set']],
      ['not_icontains_multi', [['spam', 'test']]],
    ],
    name: [
      ['regex', ['^A', '^a', '\\d', '^Z', 'B.B']],
      ['exact', ['alice', 'BOB']],
      ['icontains', ['li']],
      ['gt', ['b']],
      ['lt', ['M']],
    ],
    age: [
      ['gt', ['18', '17.5', '100', '9', ...(current ? ['abc'] : [])]],
      ['gte', ['18']],
      ['lt', ['18', '9.5']],
      ['lte', ['30']],
      ['exact', current ? ['18', 18, '30'] : ['18', '30']],
      ['is_not', ['18']],
    ],
    score: [
      ['gt', ['1.5', '3']],
      ['lte', ['2.25', '10']],
    ],
    beta: [
      ['exact', [true, false, 'true', 'False', ['true']]],
      ['is_not', [true, 'false']],
      ['is_set', ['is_set']],
    ],
    country: [
      ['exact', ['us', ['de', 'fr'], 'GB']],
      ['is_not', ['US']],
      ['icontains', ['u']],
      ['regex', ['^[A-Z]{2}$']],
    ],
    app_version: [
      ['semver_eq', ['1.2.3', 'v2.0.1', '1.2']],
      ['semver_neq', ['1.2.3']],
      ['semver_gt', ['1.2.3', '0.9.9']],
      ['semver_gte', ['1.10.0']],
      ['semver_lt', ['1.10.0', '1.2.10']],
      ['semver_lte', ['2.0.0']],
      ['semver_tilde', ['1.2.3', '0.9', '1.2']],
      ['semver_caret', ['1.2.3', '0.9.0', '0.0.3']],
      ['semver_wildcard', ['1.*', '1.2.*', '2.*', '3', ...(current ? ['1.x', '1.*.*'] : [])]],
    ],
    signup: [
      ['is_date_before', relative],
      ['is_date_after', relative],
      ['is_date_exact', ['2023-06-15']],
    ],
    tags: [['icontains', ['a', 'x']], ['regex', ['^a']], ...(current ? [['exact', ['["a","b"]', 'a,b']] as OperatorValues] : [])],
    meta: [['icontains', ['object', 'plain']], ...(current ? [['exact', ['{"a":1.5,"b":"x"}']] as OperatorValues] : [])],
  };
}

const ROLLOUTS = [null, null, null, 100, 80, 50, 33.3, 25, 10, 0];

function randomPayload(random: Random): string {
  return random.pick([
    JSON.stringify({ color: random.pick(['red', 'blue']), n: random.int(1, 9) }),
    JSON.stringify(random.int(0, 3)),
    JSON.stringify('text'),
    JSON.stringify([1, 'two', null]),
    'true',
  ]);
}

function randomVariants(random: Random, count: number): { key: string; name: string; rollout_percentage: number }[] {
  const cuts = Array.from({ length: count - 1 }, () => random.int(0, 100)).sort((a, b) => a - b);
  const bounds = [0, ...cuts, 100];
  return Array.from({ length: count }, (_, i) => ({
    key: ['control', 'test', 'blue', 'green'][i],
    name: `Variant ${i}`,
    rollout_percentage: bounds[i + 1] - bounds[i],
  }));
}

export function buildScenario(profile: Profile, seed: number, now = Date.now()): Scenario {
  const random = new Random(seed);
  const current = profile === 'current';
  const conditions = conditionPools(profile);
  const propertyNames = Object.keys(conditions);
  const flags: EvaluationFlag[] = [];
  const expectations = new Map<string, Expectation>();
  let id = 100;

  const add = (key: string, filters: FlagFilters, expectation: Expectation, extra: Partial<EvaluationFlag> = {}) => {
    const flag: EvaluationFlag = {
      id: id++,
      key,
      active: true,
      deleted: false,
      version: 1,
      filters: overridesFirst(filters),
      ensure_experience_continuity: false,
      bucketing_identifier: null,
      evaluation_runtime: 'all',
      ...extra,
    };
    flags.push(flag);
    expectations.set(key, expectation);
    return flag;
  };

  const randomProperty = (): FlagProperty => {
    const key = random.pick(propertyNames);
    const [operator, values] = random.pick(conditions[key]);
    return { key, operator, value: random.pick(values), type: 'person' };
  };

  const multivariateFilters = (groups: FlagGroup[], withPayloads: boolean): FlagFilters => {
    const variants = randomVariants(random, random.int(2, 4));
    const payloads: Record<string, string> = {};
    if (withPayloads) for (const v of variants) if (random.chance(0.7)) payloads[v.key] = randomPayload(random);
    for (const group of groups) if (random.chance(0.3)) group.variant = random.pick(variants).key;
    return { groups, multivariate: { variants }, payloads };
  };

  // Rollout-only flags: the SDK always decides them.
  for (const [i, rollout] of [0, 10, 33.3, 50, 99.9, null, 100].entries()) {
    add(`rollout-${i}`, { groups: [{ properties: [], rollout_percentage: rollout }], payloads: { true: randomPayload(random) } }, 'resolved');
  }
  add('two-rollouts', { groups: [{ properties: [], rollout_percentage: 20 }, { properties: [], rollout_percentage: 30 }] }, 'resolved');
  for (let i = 0; i < 4; i++) {
    const groups: FlagGroup[] = [{ properties: [], rollout_percentage: random.pick([100, 60, 90]) }];
    add(`multivariate-${i}`, multivariateFilters(groups, true), 'resolved');
  }
  add('multivariate-override', {
    groups: [
      { properties: [], rollout_percentage: 50, variant: 'test' },
      { properties: [], rollout_percentage: 100 },
    ],
    multivariate: { variants: [{ key: 'control', rollout_percentage: 70 }, { key: 'test', rollout_percentage: 30 }] },
    payloads: { control: '{"c":true}', test: '{"t":true}' },
  }, 'resolved');

  // Property conditions across operators.
  for (let i = 0; i < 40; i++) {
    const groups: FlagGroup[] = Array.from({ length: random.int(1, 3) }, () => ({
      properties: Array.from({ length: random.int(1, 3) }, randomProperty),
      rollout_percentage: random.pick(ROLLOUTS),
    }));
    const filters = random.chance(0.35)
      ? multivariateFilters(groups, random.chance(0.7))
      : { groups, payloads: random.chance(0.5) ? { true: randomPayload(random) } : {} };
    add(`props-${i}`, filters, 'any');
  }

  // Cohorts.
  const cohorts = new Map<number, CohortDefinition>();
  const cohortProperty = (): FlagProperty => ({ ...randomProperty(), negation: random.chance(0.25) });
  const orOfAnds = (): PropertyGroup => ({
    type: 'OR',
    values: Array.from({ length: random.int(1, 3) }, () => ({
      type: 'AND',
      values: Array.from({ length: random.int(1, 3) }, cohortProperty),
    })),
  });
  cohorts.set(1, {
    id: 1,
    isStatic: false,
    filters: {
      type: 'OR',
      values: [
        { type: 'AND', values: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }, { key: 'country', value: 'us', operator: 'exact', type: 'person' }] },
        { type: 'AND', values: [{ key: 'beta', value: 'true', operator: 'exact', type: 'person' }] },
      ],
    },
  });
  for (let c = 2; c <= 5; c++) cohorts.set(c, { id: c, isStatic: false, filters: orOfAnds() });
  cohorts.set(6, {
    id: 6,
    isStatic: false,
    filters: {
      type: 'AND',
      values: [{
        type: 'AND',
        values: [
          { key: 'id', value: 1, type: 'cohort', operator: 'in' },
          { key: 'email', value: 'spam', operator: 'icontains', type: 'person', negation: true },
        ],
      }],
    },
  });
  const notIn = current ? 'not_in' : 'in';
  cohorts.set(7, { id: 7, isStatic: false, filters: { type: 'AND', values: [{ type: 'OR', values: [{ key: 'id', value: 3, type: 'cohort', operator: notIn }, { key: 'country', value: 'de', operator: 'exact', type: 'person' }] }] } });
  if (current) cohorts.set(8, { id: 8, isStatic: false, filters: { type: 'OR', values: [{ type: 'OR', values: [] }, { type: 'AND', values: [{ key: 'country', value: 'FR', operator: 'exact', type: 'person' }] }] } });
  cohorts.set(900, { id: 900, isStatic: true, filters: { type: 'AND', values: [] } });

  const dynamicCohortIds = [...cohorts.values()].filter((c) => !c.isStatic).map((c) => c.id);
  for (let i = 0; i < 10; i++) {
    const cohortId = i < dynamicCohortIds.length ? dynamicCohortIds[i] : random.pick(dynamicCohortIds);
    const properties: FlagProperty[] = [{ key: 'id', value: cohortId, type: 'cohort', operator: random.chance(0.3) ? notIn : 'in' }];
    if (random.chance(0.3)) properties.push(randomProperty());
    add(`cohort-${i}`, { groups: [{ properties, rollout_percentage: random.pick(ROLLOUTS) }] }, 'any');
  }
  add('static-cohort', { groups: [{ properties: [{ key: 'id', value: 900, type: 'cohort', operator: 'in' }], rollout_percentage: null }] }, 'unresolved');

  // Inactive flags.
  const inactive = add('inactive-0', { groups: [{ properties: [], rollout_percentage: 100 }] }, 'resolved', { active: false });
  add('inactive-1', multivariateFilters([{ properties: [randomProperty()], rollout_percentage: null }], true), 'resolved', { active: false });

  // Group flags.
  const groupProperty = (key: string, operator: string, value: unknown, index = 0): FlagProperty => ({ key, operator, value, type: 'group', group_type_index: index });
  add('company-rollout', { aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: 50 }], payloads: { true: '"co"' } }, 'resolved');
  add('company-size', { aggregation_group_type_index: 0, groups: [{ properties: [groupProperty('employees', 'gt', '50')], rollout_percentage: 80 }] }, 'resolved');
  add('company-industry', {
    aggregation_group_type_index: 0,
    groups: [
      { properties: [groupProperty('industry', 'exact', ['fintech', 'health'])], rollout_percentage: null },
      { properties: [groupProperty('$group_key', 'icontains', 'acme')], rollout_percentage: null },
    ],
  }, 'resolved');
  add('company-multivariate', { ...multivariateFilters([{ properties: [], rollout_percentage: 100 }], true), aggregation_group_type_index: 0 }, 'resolved');
  add('project-flag', { aggregation_group_type_index: 1, groups: [{ properties: [], rollout_percentage: 70 }] }, 'resolved');
  add('unknown-group-type', { aggregation_group_type_index: 5, groups: [{ properties: [], rollout_percentage: 100 }] }, 'unresolved');

  // Flag dependencies (by id in the stored form).
  const dependencyOn = (target: EvaluationFlag): FlagProperty => {
    const variants = target.filters.multivariate?.variants ?? [];
    const value = variants.length > 0 && random.chance(0.5) ? random.pick(variants).key : random.chance(0.6);
    return { key: String(target.id), type: 'flag', value, operator: 'flag_evaluates_to' };
  };
  const targets = flags.filter((f) => expectations.get(f.key) !== 'unresolved');
  const dependents: EvaluationFlag[] = [];
  for (let i = 0; i < 10; i++) {
    const pool = i < 5 ? targets : [...targets, ...dependents];
    const properties = random.sample(pool, random.int(1, 2)).map(dependencyOn);
    if (random.chance(0.3)) properties.push(randomProperty());
    dependents.push(add(`depends-${i}`, { groups: [{ properties, rollout_percentage: random.pick(ROLLOUTS) }] }, 'any'));
  }
  add('depends-on-inactive', { groups: [{ properties: [{ key: String(inactive.id), type: 'flag', value: false, operator: 'flag_evaluates_to' }] }] }, 'resolved');
  add('depends-on-group', { groups: [{ properties: [{ key: String(flags.find((f) => f.key === 'company-rollout')!.id), type: 'flag', value: true, operator: 'flag_evaluates_to' }] }] }, 'resolved');

  // Things the SDKs ignore or cannot decide.
  add('continuity', { groups: [{ properties: [], rollout_percentage: 50 }] }, 'unresolved', { ensure_experience_continuity: true });
  add('device-bucketed', { groups: [{ properties: [], rollout_percentage: 50 }] }, 'mixed', { bucketing_identifier: 'device_id' });
  add('early-access', {
    groups: [{ properties: [], rollout_percentage: 40 }],
    super_groups: [{ properties: [{ key: '$feature_enrollment/early-access', value: ['true'], operator: 'exact', type: 'person' }], rollout_percentage: 100 }],
  }, 'resolved');
  add('holdout-groups', {
    ...multivariateFilters([{ properties: [], rollout_percentage: 100 }], false),
    holdout_groups: [{ properties: [], rollout_percentage: 0, variant: 'holdout-1' }],
  }, 'resolved');
  if (current) {
    add('sdk-holdout', { ...multivariateFilters([{ properties: [], rollout_percentage: 100 }], true), holdout: { id: 4, exclusion_percentage: 30 } }, 'resolved');
    add('early-exit', { groups: [{ properties: [], rollout_percentage: 30 }, { properties: [], rollout_percentage: 100 }], early_exit: true }, 'resolved');
    add('mixed-aggregation', {
      groups: [
        { properties: [groupProperty('employees', 'gte', '100')], rollout_percentage: 100, aggregation_group_type_index: 0 },
        { properties: [], rollout_percentage: 25 },
      ],
    }, 'resolved');
    cohorts.set(9, { id: 9, isStatic: false, filters: { type: 'AND', values: [{ key: String(flags.find((f) => f.key === 'rollout-3')!.id), type: 'flag', value: true, operator: 'flag_evaluates_to' }] } });
    add('cohort-with-dependency', { groups: [{ properties: [{ key: 'id', value: 9, type: 'cohort', operator: 'in' }] }] }, 'resolved');
  }

  return { flags, cohorts, expectations, definitions: toDefinitions(flags, cohorts) };
}

/** The SDK definitions body: dependency keys as flag keys with their `dependency_chain`; dynamic cohorts only. */
function toDefinitions(flags: EvaluationFlag[], cohorts: Map<number, CohortDefinition>): Scenario['definitions'] {
  const chains = dependencyChains(flags);
  const byId = new Map(flags.map((f) => [f.id, f]));
  const rewrite = (property: FlagProperty): FlagProperty => {
    if (property.type !== 'flag') return property;
    const target = byId.get(Number(property.key));
    return { ...property, key: target?.key ?? String(property.key), dependency_chain: target ? chains.get(target.id) ?? [] : [] };
  };
  const rewriteGroup = (group: PropertyGroup): PropertyGroup => ({
    ...group,
    values: group.values.map((value) => ('values' in value && Array.isArray(value.values) ? rewriteGroup(value as PropertyGroup) : rewrite(value as FlagProperty))),
  });
  return {
    flags: flags.map((flag) => ({
      id: flag.id,
      team_id: 1,
      name: '',
      key: flag.key,
      active: flag.active,
      deleted: flag.deleted,
      version: flag.version,
      ensure_experience_continuity: flag.ensure_experience_continuity,
      bucketing_identifier: flag.bucketing_identifier,
      evaluation_runtime: flag.evaluation_runtime,
      filters: { ...flag.filters, groups: (flag.filters.groups ?? []).map((g) => ({ ...g, properties: (g.properties ?? []).map(rewrite) })) },
    })),
    group_type_mapping: Object.fromEntries(Object.entries(GROUP_TYPES).map(([k, v]) => [k, v])),
    cohorts: Object.fromEntries([...cohorts.values()].filter((c) => !c.isStatic).map((c) => [String(c.id), rewriteGroup(c.filters)])),
  };
}

export function buildPerson(profile: Profile, random: Random, index: number, now: number): SdkPerson {
  const pools = propertyPools(profile, now);
  const personProperties: Record<string, unknown> = {};
  for (const [key, values] of Object.entries(pools)) {
    const presence = key === 'plan' || key === 'country' ? 0.97 : 0.8;
    if (random.chance(presence)) personProperties[key] = random.pick(values);
  }
  if (random.chance(0.5)) personProperties.$device_id = `device-${random.int(0, 1_000_000)}`;
  const groups: Record<string, string> = {};
  const groupProperties: Record<string, Record<string, unknown>> = {};
  if (random.chance(0.7)) {
    groups.company = random.pick(['acme', 'globex', 'initech', `co-${index % 50}`]);
    groupProperties.company = {
      employees: random.pick(profile === 'current' ? [1, 10, 50, 51, '120', 500, 99.5] : [1, 10, 50, 51, 120, 500, 99.5]),
      industry: random.pick(['fintech', 'Health', 'retail', 'HEALTH']),
    };
  }
  if (random.chance(0.2)) {
    groups.project = `p-${index % 7}`;
    groupProperties.project = { stage: random.pick(['alpha', 'beta']) };
  }
  const distinctId = random.chance(0.5) ? `user-${index}` : `${random.int(0, 2 ** 30).toString(36)}-${index}@example.com`;
  return { distinctId, personProperties, groups, groupProperties };
}
