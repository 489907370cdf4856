/**
 * The engine against the real posthog-node: both pinned versions poll a local
 * definitions endpoint serving generated flags, then evaluate locally for thousands of generated
 * people; every flag the SDK decides must get the same value and payload from `evaluateFlags`.
 * Where the SDK cannot decide (it would ask the server) the case is skipped and counted.
 *
 * Replay a failure with BW_DIFF_SEED=<seed>; change the size with BW_DIFF_PEOPLE=<n>.
 */
process.env.TZ = 'UTC'; // posthog-node reads offset-less date-times in its own time zone; the server reads UTC

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateFlags, type EvaluationContext, type FlagResult } from '../../src/evaluation/index.ts';
import { startDefinitionsServer, type DefinitionsServer } from './support/definitions-server.ts';
import { Random } from './support/random.ts';
import { buildPerson, buildScenario, GROUP_TYPES, LEGACY_DIFFERENCES, type Profile, type Scenario } from './support/scenario.ts';
import { startSdk, type SdkClient, type SdkName, type SdkPerson } from './support/sdk.ts';

const SEED = Number(process.env.BW_DIFF_SEED ?? 20240531);
const PEOPLE = Number(process.env.BW_DIFF_PEOPLE ?? 2000);
const SINGLE_CALL_EVERY = 40; // every n-th person also goes through getFeatureFlag / getFeatureFlagPayload

function contextFor(scenario: Scenario, person: SdkPerson): EvaluationContext {
  return {
    distinctId: person.distinctId,
    personProperties: person.personProperties,
    groups: person.groups,
    groupProperties: person.groupProperties,
    groupTypeMapping: GROUP_TYPES,
    cohorts: scenario.cohorts,
    staticCohortMembership: () => false,
    now: new Date(),
  };
}

const valueOf = (result: FlagResult): unknown => (result.enabled ? (result.variant ?? true) : false);

function parsePayload(payload: string | null): unknown {
  if (payload === null) return null;
  try {
    return JSON.parse(payload);
  } catch {
    return payload;
  }
}

interface Tally {
  compared: number;
  /** The SDK answered from a later condition set after skipping the one the engine matched (`skippedByTheSdk`). */
  partial: number;
  agreed: number;
  payloadsCompared: number;
  singleCalls: number;
  inconclusive: Map<string, number>;
  resolved: Map<string, number>;
  mismatches: string[];
}

type Cleanup = Array<() => Promise<void>>;

async function runDifferential(
  name: SdkName,
  profile: Profile,
  seed: number,
  cleanup: Cleanup,
): Promise<Tally & { sdk: SdkClient; server: DefinitionsServer; scenario: Scenario; ms: number }> {
  const started = Date.now();
  const scenario = buildScenario(profile, seed);
  const server = await startDefinitionsServer(scenario.definitions);
  cleanup.push(() => server.close());
  const sdk = await startSdk(name, server.url);
  cleanup.unshift(() => sdk.shutdown());
  const probeServer = await startDefinitionsServer(conditionProbes(scenario.definitions));
  cleanup.push(() => probeServer.close());
  const probeSdk = await startSdk(name, probeServer.url);
  cleanup.unshift(() => probeSdk.shutdown());
  const random = new Random(seed ^ 0x5f3759df);
  const tally: Tally = { compared: 0, partial: 0, agreed: 0, payloadsCompared: 0, singleCalls: 0, inconclusive: new Map(), resolved: new Map(), mismatches: [] };
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  const now = Date.now();

  for (let i = 0; i < PEOPLE; i++) {
    const person = buildPerson(profile, random, i, now);
    const ctx = contextFor(scenario, person);
    const ours = evaluateFlags(scenario.flags, ctx);
    const theirs = await sdk.all(person);
    const mismatch = (key: string, what: string, sdkSays: unknown, weSay: unknown, extra = '') => {
      const definition = scenario.definitions.flags.find((f) => (f as { key: string }).key === key);
      tally.mismatches.push(
        `[${name} ${sdk.version}] ${what} of ${key}: sdk=${JSON.stringify(sdkSays)} engine=${JSON.stringify(weSay)}${extra}\n` +
          `  person=${JSON.stringify(person)}\n  flag=${JSON.stringify(definition)}\n  engine reason=${JSON.stringify(ours.get(key)?.reason)}`,
      );
    };
    for (const [key, result] of ours) {
      const sdkValue = theirs.flags[key];
      if (sdkValue === undefined) {
        bump(tally.inconclusive, key);
        continue;
      }
      bump(tally.resolved, key);
      tally.compared++;
      if (sdkValue !== valueOf(result) && (await skippedByTheSdk(probeSdk, scenario, ctx, key, sdkValue, person))) {
        tally.partial++;
        continue;
      }
      if (sdkValue !== valueOf(result)) {
        mismatch(key, 'value', sdkValue, valueOf(result));
        continue;
      }
      // getAllFlagsAndPayloads leaves out falsy payloads
      const expectedPayload = parsePayload(result.payload);
      const sdkPayload = theirs.payloads[key];
      tally.payloadsCompared++;
      if (!(expectedPayload ? assertEqual(sdkPayload, expectedPayload) : sdkPayload === undefined)) {
        mismatch(key, 'payload', sdkPayload, expectedPayload);
        continue;
      }
      tally.agreed++;
    }
    if (i % SINGLE_CALL_EVERY === 0) {
      for (const [key, result] of ours) {
        const value = await sdk.flag(key, person);
        if (value === undefined || (value !== valueOf(result) && (await skippedByTheSdk(probeSdk, scenario, ctx, key, value, person)))) continue;
        tally.singleCalls++;
        if (value !== valueOf(result)) mismatch(key, 'getFeatureFlag', value, valueOf(result));
        const payload = await sdk.payload(key, person);
        const expected = parsePayload(result.payload);
        if (!assertEqual(payload ?? null, expected)) mismatch(key, 'getFeatureFlagPayload', payload, expected);
      }
    }
    if (tally.mismatches.length >= 20) break;
  }
  return { ...tally, sdk, server, scenario, ms: Date.now() - started };
}

/**
 * posthog-node skips a condition set it cannot decide (a missing property, an operator or value it
 * leaves to the server) and still answers from a later set that matches. The server decides that
 * earlier set; when it matches, both say "enabled" but a multivariate flag can get a different
 * variant (and payload). With every property the flag names supplied, and operators the SDK knows,
 * this cannot happen. To tell these cases from real disagreements, the same SDK version is asked
 * about the engine's matching condition set alone (`conditionProbes`): it must be undecidable, and
 * the engine without that set (and any further such sets) must give exactly the SDK's answer.
 */
async function skippedByTheSdk(
  probeSdk: SdkClient,
  scenario: Scenario,
  ctx: EvaluationContext,
  key: string,
  sdkValue: unknown,
  person: SdkPerson,
): Promise<boolean> {
  const original = scenario.flags.find((f) => f.key === key)!;
  const groups = [...(original.filters.groups ?? [])];
  let result = evaluateFlags(scenario.flags, ctx).get(key)!;
  for (let skipped = 0; skipped <= groups.length; skipped++) {
    if (valueOf(result) === sdkValue) return skipped > 0;
    const index = result.reason.condition_index;
    if (result.reason.code !== 'condition_match' || index === null) return false;
    if ((await probeSdk.flag(conditionProbeKey(key, index), person)) !== undefined) return false;
    // The SDK could not decide that set: the engine without it must give the SDK's answer.
    groups[index] = { properties: [], rollout_percentage: -1 };
    const flags = scenario.flags.map((f) => (f.key === key ? { ...f, filters: { ...f.filters, groups: [...groups] } } : f));
    result = evaluateFlags(flags, ctx).get(key)!;
  }
  return false;
}

const conditionProbeKey = (key: string, index: number) => `${key}--condition-${index}`;

/** Every flag plus, per condition set, a boolean flag made of that set alone (no rollout). */
function conditionProbes(definitions: Scenario['definitions']): Scenario['definitions'] {
  const flags = definitions.flags as Array<{ key: string; id: number; filters: { groups?: Array<Record<string, unknown>> } }>;
  const probes = flags.flatMap((flag) =>
    (flag.filters.groups ?? []).map((group, index) => ({
      ...flag,
      id: flag.id * 100 + index,
      key: conditionProbeKey(flag.key, index),
      filters: {
        aggregation_group_type_index: (flag.filters as Record<string, unknown>).aggregation_group_type_index ?? null,
        groups: [{ ...group, rollout_percentage: null, variant: null }],
      },
    })),
  );
  return { ...definitions, flags: [...flags, ...probes] };
}

function assertEqual(a: unknown, b: unknown): boolean {
  try {
    assert.deepStrictEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

function checkTally(result: Awaited<ReturnType<typeof runDifferential>>, label: string) {
  const { scenario, server } = result;
  const inconclusiveTotal = [...result.inconclusive.values()].reduce((a, b) => a + b, 0);
  const summary =
    `${label}: posthog-node ${result.sdk.version}, seed ${SEED}, ${PEOPLE} people × ${scenario.flags.length} flags: ` +
    `${result.compared} decided by the SDK, ${result.agreed} agree (values and payloads), ` +
    `${result.singleCalls} single-flag calls, ${inconclusiveTotal} left to the server, ` +
    `${result.partial} where the SDK skipped the engine's matching condition set (variant differs), ${result.ms} ms`;
  console.log(summary);
  assert.deepEqual(result.mismatches, [], `${result.mismatches.length} disagreement(s):\n${result.mismatches.join('\n')}`);
  assert.deepEqual(server.unexpected, [], 'the SDK only fetched definitions');
  assert.ok(result.compared > PEOPLE * scenario.flags.length * 0.6, 'most cases are decided by the SDK');
  assert.ok(result.partial < result.compared * 0.01, 'answers after a skipped condition set stay rare');
  for (const [key, expectation] of scenario.expectations) {
    const resolved = result.resolved.get(key) ?? 0;
    if (expectation === 'resolved') assert.equal(resolved, PEOPLE, `${key}: the SDK decides it for everyone`);
    if (expectation === 'unresolved') assert.equal(resolved, 0, `${key}: the SDK never decides it`);
    if (expectation === 'mixed') assert.ok(resolved >= PEOPLE * 0.1, `${key}: decided for at least 10% (${resolved})`);
  }
  const random = [...scenario.expectations].filter(([, e]) => e === 'any').map(([key]) => result.resolved.get(key) ?? 0);
  assert.ok(random.filter((n) => n >= PEOPLE * 0.1).length >= random.length * 0.8, 'most random flags are decided for many people');
}

describe('differential: evaluateFlags vs posthog-node local evaluation', () => {
  const cleanup: Cleanup = [];
  after(async () => {
    for (const step of cleanup) await step();
  });

  test('current posthog-node', async () => {
    const result = await runDifferential('current', 'current', SEED, cleanup);
    checkTally(result, 'current');
  });

  test('posthog-node 5.29.3 (legacy profile)', async () => {
    const result = await runDifferential('legacy', 'legacy', SEED + 1, cleanup);
    assert.equal(result.sdk.version, '5.29.3');
    checkTally(result, 'legacy');
  });
});

describe('posthog-node 5.29.3: the documented differences', () => {
  // Each probe: a flag, a person, what 5.29.3 answers, and what the current SDK and the engine answer.
  interface Probe {
    key: string;
    filters: Record<string, unknown>;
    person: Record<string, unknown>;
    legacy: unknown;
    current: unknown;
  }
  const cond = (key: string, operator: string, value: unknown) => ({ groups: [{ properties: [{ key, operator, value, type: 'person' }], rollout_percentage: null }] });
  const probes: Probe[] = [
    { key: 'gt-text', filters: cond('age', 'gt', '9'), person: { age: '10' }, legacy: false, current: true },
    { key: 'is-set-null', filters: cond('plan', 'is_set', 'is_set'), person: { plan: null }, legacy: false, current: true },
    { key: 'not-icontains-null', filters: cond('email', 'not_icontains', 'x'), person: { email: null }, legacy: false, current: true },
    { key: 'exact-boolean-like', filters: cond('beta', 'exact', 'false'), person: { beta: 'no' }, legacy: false, current: true },
    { key: 'exact-list-json', filters: cond('tags', 'exact', '["a","b"]'), person: { tags: ['a', 'b'] }, legacy: false, current: true },
    { key: 'exact-list-string', filters: cond('tags', 'exact', 'a,b'), person: { tags: ['a', 'b'] }, legacy: true, current: false },
    { key: 'is-not-set-present', filters: cond('plan', 'is_not_set', 'is_not_set'), person: { plan: 'x' }, legacy: undefined, current: false },
    { key: 'empty-or-cohort', filters: { groups: [{ properties: [{ key: 'id', value: 77, type: 'cohort', operator: 'in' }] }] }, person: {}, legacy: true, current: false },
    { key: 'cohort-not-in', filters: { groups: [{ properties: [{ key: 'id', value: 78, type: 'cohort', operator: 'not_in' }] }] }, person: { plan: 'pro' }, legacy: true, current: false },
    { key: 'sdk-holdout', filters: { groups: [{ properties: [], rollout_percentage: 100 }], holdout: { id: 1, exclusion_percentage: 100 } }, person: {}, legacy: true, current: 'holdout-1' },
  ];

  test('each difference, against both real SDKs and the engine', async () => {
    const flags = probes.map((p, i) => ({
      id: 1000 + i, key: p.key, active: true, deleted: false, version: 1, filters: p.filters,
      ensure_experience_continuity: false, bucketing_identifier: null, evaluation_runtime: 'all',
    }));
    const definitions = {
      77: { type: 'OR', values: [] },
      78: { type: 'AND', values: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }] },
    };
    const cohorts = new Map(Object.entries(definitions).map(([id, filters]) => [Number(id), { id: Number(id), isStatic: false, filters }]));
    const server = await startDefinitionsServer({ flags, group_type_mapping: {}, cohorts: definitions });
    const cleanup: Cleanup = [() => server.close()];
    try {
      const legacy = await startSdk('legacy', server.url);
      cleanup.unshift(() => legacy.shutdown());
      const current = await startSdk('current', server.url);
      cleanup.unshift(() => current.shutdown());
      for (const [i, probe] of probes.entries()) {
        const person: SdkPerson = { distinctId: 'probe-user', personProperties: probe.person, groups: {}, groupProperties: {} };
        const ours = evaluateFlags([flags[i]], { ...contextFor({ cohorts } as unknown as Scenario, person), groupTypeMapping: {} }).get(probe.key)!;
        assert.equal(valueOf(ours), probe.current, `${probe.key}: engine`);
        assert.equal(await current.flag(probe.key, person), probe.current, `${probe.key}: current posthog-node`);
        assert.equal(await legacy.flag(probe.key, person), probe.legacy, `${probe.key}: posthog-node 5.29.3`);
      }
      assert.deepEqual(server.unexpected, []);
    } finally {
      for (const step of cleanup) await step();
    }
    assert.ok(LEGACY_DIFFERENCES.length > 0);
  });
});
