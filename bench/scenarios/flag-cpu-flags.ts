/**
 * The flags, cohorts and people of the `flag-cpu` scenario: a project as a product team grows one,
 * described once for the API seed and for the in-process engine measurement (engine-cpu.ts).
 *
 * Flags (seeded random, the same for the same count): about 40 % plain rollouts, 25 % person
 * conditions mixing operators (`exact` lists, `is_not`, `icontains`, `not_icontains`, `gt`/`lt` on
 * a number, `is_set`; one to three per condition set, some flags with two sets), 12 % multivariate
 * with payloads (some targeted), 8 % boolean with a payload, 3 % `regex`/`not_regex`, 3 % semver
 * operators, 3 % date operators (relative and absolute), 2 % cohort conditions, 2 % flag
 * dependencies on earlier flags, 2 % inactive.
 */
import { Random } from '../lib/random.ts';

export type Property = Record<string, unknown>;

export interface CpuFlag {
  key: string;
  name: string;
  active: boolean;
  /** `filters` as the API takes them, with a dependency written as `{dependsOn: <index of an earlier flag>}` (see `filtersWithIds`). */
  filters: Record<string, unknown>;
  kind: string;
}

export interface CpuCohort {
  name: string;
  filters: { properties: { type: 'AND' | 'OR'; values: Property[] } };
}

const AREAS = ['checkout', 'billing', 'onboarding', 'search', 'dashboard', 'editor', 'mobile', 'settings', 'reports', 'notifications', 'api', 'pricing'];
const FEATURES = ['new-layout', 'v2', 'redesign', 'fast-path', 'beta', 'ai-assist', 'dark-mode', 'cache', 'banner', 'experiment', 'limits', 'export'];
const PLANS = ['free', 'pro', 'enterprise'] as const;
const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'IN', 'BR', 'JP', 'CA'] as const;
const DOMAINS = ['gmail.com', 'acme.io', 'example.com', 'bigcorp.com', 'outlook.com'] as const;
const VERSIONS = ['1.9.4', '2.0.0', '2.1.3', '2.4.0', '3.0.1', '3.2.0'] as const;
const ROLLOUTS: ReadonlyArray<readonly [number, number]> = [[100, 30], [50, 20], [25, 10], [10, 15], [5, 10], [75, 10], [0, 5]];

const person = (key: string, operator: string, value?: unknown): Property =>
  value === undefined ? { key, type: 'person', operator } : { key, type: 'person', operator, value };

/** The three cohorts cohort conditions name (created first; conditions refer to them by position). */
export const COHORTS: CpuCohort[] = [
  { name: 'Paying in Europe', filters: { properties: { type: 'AND', values: [person('plan', 'exact', ['pro', 'enterprise']), person('country', 'exact', ['DE', 'FR', 'GB'])] } } },
  { name: 'Internal', filters: { properties: { type: 'OR', values: [person('email', 'icontains', '@acme.io'), person('email', 'regex', '^qa-\\d+@')] } } },
  { name: 'Large accounts', filters: { properties: { type: 'AND', values: [person('seats', 'gt', '50'), person('plan', 'is_not', 'free')] } } },
];

function rolloutOf(random: Random): number {
  return random.weighted(ROLLOUTS);
}

function personConditions(random: Random): Property[] {
  const pool: Array<() => Property> = [
    () => person('plan', 'exact', random.chance(0.5) ? ['pro', 'enterprise'] : ['enterprise']),
    () => person('country', 'exact', [...new Set([random.pick(COUNTRIES), random.pick(COUNTRIES), random.pick(COUNTRIES)])]),
    () => person('country', 'is_not', [random.pick(COUNTRIES)]),
    () => person('email', 'icontains', random.pick(['@acme.io', 'bigcorp', '@example.com'])),
    () => person('email', 'not_icontains', random.pick(['gmail', 'outlook'])),
    () => person('seats', random.pick(['gt', 'lt', 'gte']), String(random.pick([5, 10, 25, 50, 100]))),
    () => person('beta_opt_in', 'exact', ['true']),
    () => person('company', 'is_set'),
  ];
  const count = 1 + Math.floor(random.next() * 3);
  return Array.from({ length: count }, () => random.pick(pool)());
}

function regexCondition(random: Random): Property {
  return random.pick([
    person('email', 'regex', '^user-\\d+@(acme\\.io|bigcorp\\.com)$'),
    person('email', 'not_regex', '@(gmail|outlook)\\.com$'),
    person('company', 'regex', '^(Acme|Globex|Initech)'),
  ]);
}

function semverCondition(random: Random): Property {
  return random.pick([
    person('app_version', 'semver_gte', '2.1.0'),
    person('app_version', 'semver_lt', '3.0.0'),
    person('app_version', 'semver_caret', '2.0.0'),
    person('app_version', 'semver_tilde', '2.4.0'),
  ]);
}

function dateCondition(random: Random): Property {
  return random.pick([
    person('signed_up_at', 'is_date_after', '-30d'),
    person('signed_up_at', 'is_date_before', '2026-01-01'),
    person('signed_up_at', 'is_date_after', '-6m'),
  ]);
}

const group = (properties: Property[], rollout: number): Property => ({ properties, rollout_percentage: rollout });

const VARIANT_SETS: ReadonlyArray<ReadonlyArray<readonly [string, number, string]>> = [
  [['control', 50, '{"color":"blue","cta":"Buy now"}'], ['test', 50, '{"color":"green","cta":"Start free trial"}']],
  [['control', 34, '{"layout":"list"}'], ['grid', 33, '{"layout":"grid","columns":3}'], ['cards', 33, '{"layout":"cards","columns":2}']],
];

/** `count` flags; the same for the same seed. A dependency names an earlier flag by its position. */
export function cpuFlags(count: number, seed = 41): CpuFlag[] {
  const random = new Random(seed);
  const flags: CpuFlag[] = [];
  for (let i = 0; i < count; i += 1) {
    const key = `${random.pick(AREAS)}-${random.pick(FEATURES)}-${i}`;
    const kind =
      i < 20
        ? 'rollout' // dependencies need earlier flags
        : random.weighted<string>([['rollout', 40], ['person', 25], ['multivariate', 12], ['payload', 8], ['regex', 3], ['semver', 3], ['date', 3], ['cohort', 2], ['dependency', 2], ['inactive', 2]]);
    const rollout = rolloutOf(random);
    let filters: Record<string, unknown>;
    switch (kind) {
      case 'person':
        filters = {
          groups: random.chance(0.3)
            ? [group([person('email', 'icontains', '@acme.io')], 100), group(personConditions(random), rollout)]
            : [group(personConditions(random), rollout)],
        };
        break;
      case 'multivariate': {
        const variants = random.pick(VARIANT_SETS);
        filters = {
          groups: [group(random.chance(0.3) ? [person('plan', 'exact', ['pro', 'enterprise'])] : [], random.chance(0.5) ? 100 : 50)],
          multivariate: { variants: variants.map(([variant, share]) => ({ key: variant, name: variant, rollout_percentage: share })) },
          payloads: Object.fromEntries(variants.map(([variant, , payload]) => [variant, payload])),
        };
        break;
      }
      case 'payload':
        filters = { groups: [group([], rollout)], payloads: { true: `{"limit":${random.pick([10, 50, 100])},"message":"Thanks for trying ${key}"}` } };
        break;
      case 'regex':
        filters = { groups: [group([regexCondition(random)], rollout)] };
        break;
      case 'semver':
        filters = { groups: [group([semverCondition(random), ...(random.chance(0.5) ? [person('plan', 'is_not', 'free')] : [])], rollout)] };
        break;
      case 'date':
        filters = { groups: [group([dateCondition(random)], rollout)] };
        break;
      case 'cohort':
        filters = { groups: [group([{ key: 'id', type: 'cohort', operator: 'in', value: { cohort: Math.floor(random.next() * COHORTS.length) } }], rollout)] };
        break;
      case 'dependency': {
        // An active flag at least 16 places back: created in an earlier batch of the API seed.
        let target = random.int(i - 16);
        while (!flags[target].active) target = random.int(i - 16);
        filters = { groups: [group([{ key: { dependsOn: target }, type: 'flag', operator: 'flag_evaluates_to', value: true }], 100)] };
        break;
      }
      default:
        filters = { groups: [group([], kind === 'inactive' ? 100 : rollout)] };
    }
    flags.push({ key, name: key.replace(/-/g, ' '), active: kind !== 'inactive', filters, kind });
  }
  return flags;
}

/**
 * The flag's filters with real ids: a cohort condition gets the cohort's id, a dependency the id of
 * the flag it names (`cohortIds` and `flagIds` by position).
 */
export function filtersWithIds(flag: CpuFlag, cohortIds: readonly number[], flagIds: readonly number[]): Record<string, unknown> {
  const groups = (flag.filters.groups as Array<{ properties: Property[]; rollout_percentage: number }>).map((g) => ({
    ...g,
    properties: g.properties.map((property) => {
      const value = property.value as { cohort?: number } | undefined;
      if (property.type === 'cohort' && value && typeof value.cohort === 'number') return { ...property, value: cohortIds[value.cohort] };
      const key = property.key as { dependsOn?: number } | string;
      if (property.type === 'flag' && typeof key === 'object') return { ...property, key: String(flagIds[key.dependsOn!]) };
      return property;
    }),
  }));
  return { ...flag.filters, groups };
}

export interface CpuPerson {
  distinctId: string;
  properties: Record<string, string | number>;
}

/** `count` people with the properties the flags read; the same for the same seed. */
export function cpuPeople(count: number, seed = 43): CpuPerson[] {
  const random = new Random(seed);
  const day = 86_400_000;
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const distinctId = random.chance(0.05) ? `qa-${i}` : `user-${i}`;
    const properties: Record<string, string | number> = {
      email: `${distinctId}@${random.weighted([[DOMAINS[0], 40], [DOMAINS[1], 10], [DOMAINS[2], 15], [DOMAINS[3], 20], [DOMAINS[4], 15]])}`,
      plan: random.weighted<string>([[PLANS[0], 60], [PLANS[1], 30], [PLANS[2], 10]]),
      country: random.pick(COUNTRIES),
      seats: 1 + Math.floor(random.next() * 120),
      app_version: random.pick(VERSIONS),
      signed_up_at: new Date(now - Math.floor(random.next() * 400) * day).toISOString(),
      beta_opt_in: random.chance(0.2) ? 'true' : 'false',
    };
    if (random.chance(0.4)) properties.company = random.pick(['Acme Corp', 'Globex', 'Initech', 'Umbrella', 'Hooli']);
    return { distinctId, properties };
  });
}
