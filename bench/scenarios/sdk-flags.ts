/**
 * The flags and the people of the `sdk` scenario, one description for both servers:
 * - each flag as Bellwether's management API takes it (and as it stores it, for the SQL seed of
 *   the scale curve), and as the same flag in Unleash (a `flexibleRollout` strategy per condition
 *   set, enabled in `development`, strategy variants with payloads for multivariate flags);
 * - the people the SDK calls ask about: a distinct id and the properties a server SDK sends.
 */
import { Random } from '../lib/random.ts';

export type FlagKind = 'rollout' | 'targeted' | 'payload' | 'multivariate' | 'inactive';

/** A condition on a person property, in both vocabularies. */
interface Condition {
  key: 'email' | 'plan' | 'country';
  posthog: { operator: 'exact' | 'is_not' | 'icontains'; value: string | string[] };
  unleash: { operator: 'IN' | 'NOT_IN' | 'STR_CONTAINS'; values: string[]; caseInsensitive?: boolean };
}

interface ConditionSet {
  conditions: Condition[];
  rollout: number;
}

interface Variant {
  key: string;
  share: number;
  payload: string;
}

export interface SeedFlag {
  key: string;
  name: string;
  kind: FlagKind;
  active: boolean;
  sets: ConditionSet[];
  variants: Variant[];
  /** The payload of a boolean flag (PostHog's `payloads.true`). */
  payload: string | null;
}

const AREAS = ['checkout', 'billing', 'onboarding', 'search', 'dashboard', 'editor', 'mobile', 'settings', 'reports', 'notifications', 'api', 'pricing'];
const FEATURES = ['new-layout', 'v2', 'redesign', 'fast-path', 'beta', 'ai-assist', 'dark-mode', 'cache', 'banner', 'experiment', 'limits', 'export'];
const PLANS = ['free', 'pro', 'enterprise'] as const;
const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'IN', 'BR', 'JP', 'CA'] as const;
const DOMAINS = ['gmail.com', 'acme.io', 'example.com', 'bigcorp.com', 'outlook.com'] as const;
const ROLLOUTS: ReadonlyArray<readonly [number, number]> = [[100, 30], [50, 20], [25, 10], [10, 15], [5, 10], [75, 10], [0, 5]];

const plan = (values: string[]): Condition => ({
  key: 'plan',
  posthog: { operator: 'exact', value: values },
  unleash: { operator: 'IN', values },
});
const country = (values: string[], negate = false): Condition => ({
  key: 'country',
  posthog: { operator: negate ? 'is_not' : 'exact', value: values },
  unleash: { operator: negate ? 'NOT_IN' : 'IN', values },
});
const emailContains = (text: string): Condition => ({
  key: 'email',
  posthog: { operator: 'icontains', value: text },
  unleash: { operator: 'STR_CONTAINS', values: [text], caseInsensitive: true },
});

function targetedSets(random: Random): ConditionSet[] {
  const rollout = random.weighted(ROLLOUTS.filter(([r]) => r > 0));
  return random.weighted<() => ConditionSet[]>([
    [() => [{ conditions: [plan(random.chance(0.5) ? ['pro', 'enterprise'] : ['enterprise'])], rollout: 100 }], 3],
    [() => [{ conditions: [country([...new Set([random.pick(COUNTRIES), random.pick(COUNTRIES)])])], rollout }], 2],
    [() => [{ conditions: [plan(['pro', 'enterprise']), country(['US', 'CA'], true)], rollout }], 1],
    // Internal users first, then a gradual rollout for everyone: two condition sets.
    [() => [{ conditions: [emailContains('@acme.io')], rollout: 100 }, { conditions: [], rollout }], 3],
  ])();
}

const VARIANT_SETS: ReadonlyArray<readonly Variant[]> = [
  [
    { key: 'control', share: 50, payload: '{"color":"blue","cta":"Buy now"}' },
    { key: 'test', share: 50, payload: '{"color":"green","cta":"Start free trial"}' },
  ],
  [
    { key: 'control', share: 34, payload: '{"layout":"list"}' },
    { key: 'grid', share: 33, payload: '{"layout":"grid","columns":3}' },
    { key: 'cards', share: 33, payload: '{"layout":"cards","columns":2,"images":true}' },
  ],
];

/**
 * `count` flags, the same for the same seed: about 50 % plain rollouts, 25 % targeted on person
 * properties (plan, country, email; some with two condition sets), 10 % multivariate with a
 * payload per variant, 10 % boolean with a payload, 5 % inactive. The last one is always on for
 * everyone: once Unleash's frontend API shows it, it has every flag.
 */
export function seedFlags(count: number, seed = 23): SeedFlag[] {
  const random = new Random(seed);
  const flags: SeedFlag[] = [];
  for (let i = 0; i < count; i += 1) {
    const key = `${random.pick(AREAS)}-${random.pick(FEATURES)}-${i}`;
    const last = i === count - 1;
    const kind: FlagKind = last
      ? 'rollout'
      : random.weighted<FlagKind>([['rollout', 50], ['targeted', 25], ['multivariate', 10], ['payload', 10], ['inactive', 5]]);
    const rollout = last ? 100 : random.weighted(ROLLOUTS);
    const flag: SeedFlag = { key, name: `${key.replace(/-/g, ' ')}`, kind, active: kind !== 'inactive', sets: [], variants: [], payload: null };
    switch (kind) {
      case 'rollout':
      case 'inactive':
        flag.sets = [{ conditions: [], rollout }];
        break;
      case 'targeted':
        flag.sets = targetedSets(random);
        break;
      case 'payload':
        flag.sets = [{ conditions: [], rollout }];
        flag.payload = `{"limit":${random.pick([10, 50, 100, 500])},"message":"Thanks for trying ${key}"}`;
        break;
      case 'multivariate':
        flag.sets = [{ conditions: random.chance(0.3) ? [plan(['pro', 'enterprise'])] : [], rollout: random.chance(0.5) ? 100 : 50 }];
        flag.variants = [...random.pick(VARIANT_SETS)];
        break;
    }
    flags.push(flag);
  }
  return flags;
}

/** PostHog's `filters`, exactly as Bellwether's API stores them (checked after the API seed). */
export function posthogFilters(flag: SeedFlag): Record<string, unknown> {
  const filters: Record<string, unknown> = {
    groups: flag.sets.map((set) => ({
      properties: set.conditions.map((c) => ({ key: c.key, type: 'person', operator: c.posthog.operator, value: c.posthog.value })),
      rollout_percentage: set.rollout,
    })),
  };
  if (flag.variants.length > 0) {
    filters.multivariate = { variants: flag.variants.map((v) => ({ key: v.key, name: v.key, rollout_percentage: v.share })) };
    filters.payloads = Object.fromEntries(flag.variants.map((v) => [v.key, v.payload]));
  }
  if (flag.payload !== null) filters.payloads = { true: flag.payload };
  return filters;
}

/** The body of `POST /api/projects/{id}/feature_flags/`. */
export function posthogCreateBody(flag: SeedFlag): Record<string, unknown> {
  return { key: flag.key, name: flag.name, active: flag.active, filters: posthogFilters(flag) };
}

/** One strategy per condition set, for `POST …/features/{name}/environments/development/strategies`. */
export function unleashStrategies(flag: SeedFlag): Array<Record<string, unknown>> {
  return flag.sets.map((set) => ({
    name: 'flexibleRollout',
    constraints: set.conditions.map((c) => ({
      contextName: c.key,
      operator: c.unleash.operator,
      values: c.unleash.values,
      caseInsensitive: c.unleash.caseInsensitive ?? false,
      inverted: false,
    })),
    parameters: { rollout: String(set.rollout), stickiness: 'default', groupId: flag.key },
    variants: [
      ...flag.variants.map((v) => ({
        name: v.key,
        weight: v.share * 10,
        weightType: 'variable',
        stickiness: 'default',
        payload: { type: 'json', value: v.payload },
      })),
      // Unleash has no payload on a plain on/off flag: a single variant carries it.
      ...(flag.payload !== null
        ? [{ name: 'on', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: flag.payload } }]
        : []),
    ],
  }));
}

/** A person as a server SDK describes them: distinct id and the properties it sends. */
export interface Person {
  distinctId: string;
  properties: { email: string; plan: string; country: string };
}

/** `count` people, the same for the same seed. */
export function people(count: number, seed = 29): Person[] {
  const random = new Random(seed);
  return Array.from({ length: count }, (_, i) => {
    const distinctId = `user-${i}`;
    return {
      distinctId,
      properties: {
        email: `${distinctId}@${random.weighted([[DOMAINS[0], 40], [DOMAINS[1], 10], [DOMAINS[2], 15], [DOMAINS[3], 20], [DOMAINS[4], 15]])}`,
        plan: random.weighted<string>([[PLANS[0], 60], [PLANS[1], 30], [PLANS[2], 10]]),
        country: random.pick(COUNTRIES),
      },
    };
  });
}
