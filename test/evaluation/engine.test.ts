import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  dependencyChains,
  evaluateFlag,
  evaluateFlags,
  flagHash,
  holdoutHash,
  type CohortDefinition,
  type EvaluationContext,
  type EvaluationFlag,
  type FlagResult,
} from '../../src/evaluation/index.ts';
import type { FlagFilters } from '../../src/targeting/types.ts';

let nextId = 1;
function flag(key: string, filters: FlagFilters, extra: Partial<EvaluationFlag> = {}): EvaluationFlag {
  return {
    id: nextId++,
    key,
    active: true,
    deleted: false,
    version: 1,
    filters,
    ensure_experience_continuity: false,
    bucketing_identifier: null,
    evaluation_runtime: 'all',
    ...extra,
  };
}

function context(extra: Partial<EvaluationContext> = {}): EvaluationContext {
  return {
    distinctId: 'user-1',
    personProperties: {},
    groups: {},
    groupProperties: {},
    groupTypeMapping: { 0: 'company', 1: 'project' },
    cohorts: new Map(),
    ...extra,
  };
}

const person = (key: string, value: unknown, operator = 'exact') => ({ key, value, operator, type: 'person' });

/** Distinct ids whose rollout hash for `key` is below / above a threshold. */
function idWhere(key: string, predicate: (hash: number) => boolean, salt = ''): string {
  for (let i = 0; i < 10_000; i++) if (predicate(flagHash(key, `id-${i}`, salt))) return `id-${i}`;
  throw new Error('no such id');
}

const brief = (r: FlagResult) => [r.enabled, r.variant, r.reason.code, r.reason.condition_index];

describe('evaluation engine', () => {
  test('inactive flags are disabled', () => {
    const r = evaluateFlag(flag('off', { groups: [{ properties: [], rollout_percentage: 100 }] }, { active: false }), context());
    assert.deepEqual(r, {
      key: 'off',
      enabled: false,
      variant: null,
      payload: null,
      reason: { code: 'flag_disabled', condition_index: null, description: 'Feature flag is disabled' },
    });
  });

  test('first matching condition set wins; reason and description name it', () => {
    const f = flag('first', {
      groups: [
        { properties: [person('plan', 'pro')], rollout_percentage: null },
        { properties: [person('email', 'example.com', 'icontains')], rollout_percentage: null },
        { properties: [], rollout_percentage: 100 },
      ],
    });
    const r = evaluateFlag(f, context({ personProperties: { email: 'a@example.com' } }));
    assert.deepEqual(r.reason, { code: 'condition_match', condition_index: 1, description: 'Matched condition set 2' });
    assert.equal(r.enabled, true);
    assert.equal(r.variant, null);
  });

  test('non-match reasons: highest rank wins, the later one on equal rank', () => {
    const key = 'reasons';
    const outside = idWhere(key, (h) => h > 0.5);
    const f = flag(key, {
      groups: [
        { properties: [person('plan', 'pro')], rollout_percentage: null }, // no_condition_match
        { properties: [], rollout_percentage: 50 }, // out_of_rollout_bound
        { properties: [person('plan', 'enterprise')], rollout_percentage: null }, // no_condition_match
      ],
    });
    const r = evaluateFlag(f, context({ distinctId: outside }));
    assert.deepEqual(r.reason, { code: 'out_of_rollout_bound', condition_index: 1, description: 'Out of rollout bound' });

    const none = flag('none', {
      groups: [
        { properties: [person('plan', 'pro')], rollout_percentage: null },
        { properties: [person('plan', 'x')], rollout_percentage: null },
      ],
    });
    assert.deepEqual(evaluateFlag(none, context()).reason, {
      code: 'no_condition_match',
      condition_index: 1,
      description: 'No matching condition set',
    });

    const rollouts = flag(key, { groups: [{ properties: [], rollout_percentage: 10 }, { properties: [], rollout_percentage: 20 }] });
    const far = idWhere(key, (h) => h > 0.3);
    assert.deepEqual(brief(evaluateFlag(rollouts, context({ distinctId: far }))), [false, null, 'out_of_rollout_bound', 1]);

    assert.deepEqual(brief(evaluateFlag(flag('empty', { groups: [] }), context())), [false, null, 'no_condition_match', null]);
  });

  test('properties match but rollout fails → out_of_rollout_bound; rollout passes → match', () => {
    const key = 'rollout';
    const inside = idWhere(key, (h) => h <= 0.3);
    const outside = idWhere(key, (h) => h > 0.3);
    const f = flag(key, { groups: [{ properties: [person('plan', 'pro')], rollout_percentage: 30 }] });
    const props = { plan: 'pro' };
    assert.deepEqual(brief(evaluateFlag(f, context({ distinctId: inside, personProperties: props }))), [true, null, 'condition_match', 0]);
    assert.deepEqual(brief(evaluateFlag(f, context({ distinctId: outside, personProperties: props }))), [false, null, 'out_of_rollout_bound', 0]);
    assert.deepEqual(brief(evaluateFlag(f, context({ distinctId: inside }))), [false, null, 'no_condition_match', 0]);
  });

  test('early_exit stops at a condition set that fails only its rollout', () => {
    const key = 'early';
    const outside = idWhere(key, (h) => h > 0.2);
    const groups = [
      { properties: [], rollout_percentage: 20 },
      { properties: [person('plan', 'pro')], rollout_percentage: null },
    ];
    const ctx = context({ distinctId: outside, personProperties: { plan: 'pro' } });
    assert.deepEqual(brief(evaluateFlag(flag(key, { groups }), ctx)), [true, null, 'condition_match', 1]);
    assert.deepEqual(brief(evaluateFlag(flag(key, { groups, early_exit: true }), ctx)), [false, null, 'out_of_rollout_bound', 0]);
  });

  test('variants: a real override wins, otherwise the hash picks; payloads follow the value', () => {
    const key = 'multi';
    const multivariate = {
      variants: [
        { key: 'control', rollout_percentage: 50 },
        { key: 'test', rollout_percentage: 50 },
      ],
    };
    const payloads = { control: '{"c":1}', test: '"t"' };
    const lowId = idWhere(key, (h) => h < 0.5, 'variant');
    const f = flag(key, {
      groups: [
        { properties: [person('beta', true)], rollout_percentage: null, variant: 'test' },
        { properties: [person('ghost', true)], rollout_percentage: null, variant: 'nope' },
        { properties: [], rollout_percentage: 100 },
      ],
      multivariate,
      payloads,
    });
    const override = evaluateFlag(f, context({ distinctId: lowId, personProperties: { beta: 'TRUE' } }));
    assert.deepEqual([override.variant, override.payload, override.reason.condition_index], ['test', '"t"', 0]);
    const bogus = evaluateFlag(f, context({ distinctId: lowId, personProperties: { ghost: true } }));
    assert.deepEqual([bogus.variant, bogus.payload, bogus.reason.condition_index], ['control', '{"c":1}', 1]);
    const hashed = evaluateFlag(f, context({ distinctId: idWhere(key, (h) => h >= 0.5, 'variant') }));
    assert.deepEqual([hashed.variant, hashed.reason.condition_index], ['test', 2]);

    const boolean = flag('bool', { groups: [{ properties: [], rollout_percentage: null }], payloads: { true: '[1,2]' } });
    assert.deepEqual([evaluateFlag(boolean, context()).variant, evaluateFlag(boolean, context()).payload], [null, '[1,2]']);
    const noPayload = flag('bool2', { groups: [{ properties: [], rollout_percentage: null }] });
    assert.equal(evaluateFlag(noPayload, context()).payload, null);
  });

  test('condition sets with an override are evaluated first; indexes stay the stored ones', () => {
    const f = flag('order', {
      groups: [
        { properties: [], rollout_percentage: null },
        { properties: [], rollout_percentage: null, variant: 'b' },
      ],
      multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }, { key: 'b', rollout_percentage: 0 }] },
    });
    const r = evaluateFlag(f, context());
    assert.deepEqual(brief(r), [true, 'b', 'condition_match', 1]);
    assert.equal(r.reason.description, 'Matched condition set 2');
  });

  test('group flags hash the group key and read group properties', () => {
    const key = 'org-flag';
    const f = flag(key, {
      aggregation_group_type_index: 0,
      groups: [{ properties: [{ key: 'size', value: '10', operator: 'gt', type: 'group', group_type_index: 0 }], rollout_percentage: 50 }],
    });
    const inside = idWhere(key, (h) => h <= 0.5);
    const outside = idWhere(key, (h) => h > 0.5);
    const ctx = (groupKey: string, size: unknown) =>
      context({ groups: { company: groupKey }, groupProperties: { company: { size } }, distinctId: outside });
    assert.deepEqual(brief(evaluateFlag(f, ctx(inside, 20))), [true, null, 'condition_match', 0]);
    assert.deepEqual(brief(evaluateFlag(f, ctx(outside, 20))), [false, null, 'out_of_rollout_bound', 0]);
    assert.deepEqual(brief(evaluateFlag(f, ctx(inside, 5))), [false, null, 'no_condition_match', 0]);
    const missing = evaluateFlag(f, context({ groups: { project: 'p' } }));
    assert.deepEqual(missing.reason, { code: 'no_group_type', condition_index: null, description: 'No group type' });
    const unknownIndex = flag('unknown-index', { aggregation_group_type_index: 7, groups: [{ properties: [], rollout_percentage: null }] });
    assert.equal(evaluateFlag(unknownIndex, context({ groups: { company: 'c' } })).reason.code, 'no_group_type');
    // $group_key is available as a group property, distinct_id as a person property
    const byKey = flag('by-key', {
      aggregation_group_type_index: 0,
      groups: [{ properties: [{ key: '$group_key', value: 'acme', type: 'group', group_type_index: 0 }] }],
    });
    assert.equal(evaluateFlag(byKey, context({ groups: { company: 'acme' } })).enabled, true);
    const byDistinctId = flag('by-id', { groups: [{ properties: [person('distinct_id', 'USER-1')] }] });
    assert.equal(evaluateFlag(byDistinctId, context()).enabled, true);
  });

  test('mixed targeting: a condition set with its own group type', () => {
    const f = flag('mixed', {
      groups: [
        { properties: [{ key: 'tier', value: 'gold', type: 'group', group_type_index: 1 }], aggregation_group_type_index: 1 },
        { properties: [person('plan', 'pro')] },
      ],
    });
    assert.deepEqual(
      brief(evaluateFlag(f, context({ groups: { project: 'p1' }, groupProperties: { project: { tier: 'gold' } } }))),
      [true, null, 'condition_match', 0],
    );
    assert.deepEqual(brief(evaluateFlag(f, context({ personProperties: { plan: 'pro' } }))), [true, null, 'condition_match', 1]);
    assert.deepEqual(brief(evaluateFlag(f, context())), [false, null, 'no_group_type', 0]);
  });

  test('super groups: the enrollment property decides when it is set', () => {
    const key = 'early-access';
    const enrollment = `$feature_enrollment/${key}`;
    const f = flag(key, {
      groups: [{ properties: [], rollout_percentage: 0 }],
      super_groups: [{ properties: [{ key: enrollment, value: ['true'], operator: 'exact', type: 'person' }], rollout_percentage: null }],
      payloads: { true: '"p"' },
    });
    const on = evaluateFlag(f, context({ personProperties: { [enrollment]: true } }));
    assert.deepEqual(on, {
      key,
      enabled: true,
      variant: null,
      payload: '"p"',
      reason: { code: 'super_condition_value', condition_index: 0, description: 'Super condition value' },
    });
    assert.deepEqual(brief(evaluateFlag(f, context({ personProperties: { [enrollment]: false } }))), [false, null, 'super_condition_value', 0]);
    const id = idWhere(key, (h) => h > 0);
    assert.deepEqual(brief(evaluateFlag(f, context({ distinctId: id }))), [false, null, 'out_of_rollout_bound', 0]);
    // the newer `feature_enrollment: true` form
    const g = flag(key, { groups: [{ properties: [], rollout_percentage: 0 }], feature_enrollment: true });
    assert.deepEqual(brief(evaluateFlag(g, context({ personProperties: { [enrollment]: 'true' } }))), [true, null, 'super_condition_value', 0]);
    assert.deepEqual(brief(evaluateFlag(g, context({ personProperties: { [enrollment]: 'no' } }))), [false, null, 'super_condition_value', 0]);
    // a super group without properties decides only when it matches
    const h = flag(key, { groups: [{ properties: [person('plan', 'pro')] }], super_groups: [{ properties: [], rollout_percentage: 100 }] });
    assert.deepEqual(brief(evaluateFlag(h, context())), [true, null, 'super_condition_value', 0]);
  });

  test('holdouts: hashed on holdout-<identifier>, before the condition sets', () => {
    const holdoutId = (predicate: (hash: number) => boolean) => {
      for (let i = 0; i < 10_000; i++) if (predicate(holdoutHash(`id-${i}`))) return `id-${i}`;
      throw new Error('no such id');
    };
    const inHoldout = holdoutId((h) => h <= 0.1);
    const outHoldout = holdoutId((h) => h > 0.1);
    const multivariate = { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] };
    const f = flag('exp', {
      groups: [{ properties: [], rollout_percentage: 100 }],
      multivariate,
      holdout_groups: [{ properties: [], rollout_percentage: 10, variant: 'holdout-7' }],
      payloads: { 'holdout-7': '"h"' },
    });
    const held = evaluateFlag(f, context({ distinctId: inHoldout }));
    assert.deepEqual(held, {
      key: 'exp',
      enabled: true,
      variant: 'holdout-7',
      payload: '"h"',
      reason: { code: 'holdout_condition_value', condition_index: null, description: 'Holdout condition value' },
    });
    assert.equal(evaluateFlag(f, context({ distinctId: outHoldout })).reason.code, 'condition_match');
    // the newer `holdout: {id, exclusion_percentage}` form
    const g = flag('exp2', { groups: [{ properties: [], rollout_percentage: 100 }], multivariate, holdout: { id: 3, exclusion_percentage: 10 } });
    assert.deepEqual(brief(evaluateFlag(g, context({ distinctId: inHoldout }))), [true, 'holdout-3', 'holdout_condition_value', null]);
    assert.equal(evaluateFlag(g, context({ distinctId: outHoldout })).reason.code, 'condition_match');
  });

  test('experience continuity uses the hash-key override', () => {
    const key = 'continuity';
    const inside = idWhere(key, (h) => h <= 0.5);
    const outside = idWhere(key, (h) => h > 0.5);
    const f = flag(key, { groups: [{ properties: [], rollout_percentage: 50 }] }, { ensure_experience_continuity: true });
    assert.equal(evaluateFlag(f, context({ distinctId: outside, hashKeyOverrides: { [key]: inside } })).enabled, true);
    assert.equal(evaluateFlag(f, context({ distinctId: inside, hashKeyOverrides: { [key]: outside } })).enabled, false);
    assert.equal(evaluateFlag(f, context({ distinctId: inside })).enabled, true);
    const plain = { ...f, ensure_experience_continuity: false };
    assert.equal(evaluateFlag(plain, context({ distinctId: outside, hashKeyOverrides: { [key]: inside } })).enabled, false);
  });

  test('device-id bucketing', () => {
    const key = 'device';
    const inside = idWhere(key, (h) => h <= 0.5);
    const outside = idWhere(key, (h) => h > 0.5);
    const f = flag(key, { groups: [{ properties: [], rollout_percentage: 50 }] }, { bucketing_identifier: 'device_id' });
    assert.equal(evaluateFlag(f, context({ distinctId: outside, deviceId: inside })).enabled, true);
    assert.equal(evaluateFlag(f, context({ distinctId: inside, deviceId: outside })).enabled, false);
    assert.equal(evaluateFlag(f, context({ distinctId: outside, personProperties: { $device_id: inside } })).enabled, true);
    assert.deepEqual(brief(evaluateFlag(f, context({ distinctId: inside }))), [false, null, 'out_of_rollout_bound', 0]);
  });

  test('cohorts: nested AND/OR, negation, cohort in cohort, static membership, unknown', () => {
    const cohorts = new Map<number, CohortDefinition>([
      [1, { id: 1, isStatic: false, filters: { type: 'OR', values: [{ type: 'AND', values: [person('plan', 'pro'), person('country', 'US')] }, { type: 'AND', values: [person('vip', true)] }] } }],
      [2, { id: 2, isStatic: false, filters: { type: 'AND', values: [{ type: 'AND', values: [{ ...person('email', 'spam', 'icontains'), negation: true }, { key: 'id', value: 1, type: 'cohort', operator: 'in' }] }] } }],
      [3, { id: 3, isStatic: true, filters: { type: 'AND', values: [] } }],
      [4, { id: 4, isStatic: false, filters: { type: 'OR', values: [] } }],
      [5, { id: 5, isStatic: false, filters: { type: 'AND', values: [{ key: 'id', value: 5, type: 'cohort', operator: 'in' }] } }],
      [6, { id: 6, isStatic: false, filters: {} as never }],
    ]);
    const byCohort = (id: number, operator = 'in') => flag(`c${id}${operator}`, { groups: [{ properties: [{ key: 'id', value: id, type: 'cohort', operator }] }] });
    const ctx = (personProperties: Record<string, unknown>, statics: number[] = []) =>
      context({ personProperties, cohorts, staticCohortMembership: (id) => statics.includes(id) });
    assert.equal(evaluateFlag(byCohort(1), ctx({ plan: 'pro', country: 'us' })).enabled, true);
    assert.equal(evaluateFlag(byCohort(1), ctx({ plan: 'pro', country: 'DE' })).enabled, false);
    assert.equal(evaluateFlag(byCohort(1), ctx({ vip: 'true' })).enabled, true);
    assert.equal(evaluateFlag(byCohort(1, 'not_in'), ctx({ vip: 'true' })).enabled, false);
    assert.equal(evaluateFlag(byCohort(1, 'not_in'), ctx({})).enabled, true);
    assert.equal(evaluateFlag(byCohort(2), ctx({ vip: true, email: 'a@b.c' })).enabled, true);
    assert.equal(evaluateFlag(byCohort(2), ctx({ vip: true, email: 'spam@b.c' })).enabled, false);
    assert.equal(evaluateFlag(byCohort(2), ctx({ vip: true })).enabled, true, 'missing email: not_icontains-like, negated icontains holds');
    assert.equal(evaluateFlag(byCohort(3), ctx({}, [3])).enabled, true);
    assert.equal(evaluateFlag(byCohort(3), ctx({}, [])).enabled, false);
    assert.equal(evaluateFlag(byCohort(3, 'not_in'), ctx({}, [])).enabled, true);
    assert.equal(evaluateFlag(byCohort(4), ctx({})).enabled, false, 'OR without values');
    assert.equal(evaluateFlag(byCohort(5), ctx({})).enabled, false, 'a cohort containing itself');
    assert.equal(evaluateFlag(byCohort(6), ctx({})).enabled, true, 'empty definition');
    assert.equal(evaluateFlag(byCohort(99), ctx({})).enabled, false, 'unknown cohort');
    assert.equal(evaluateFlag(byCohort(99, 'not_in'), ctx({})).enabled, false, 'unknown cohort, not_in');
    assert.equal(evaluateFlag(byCohort(99), ctx({})).reason.code, 'no_condition_match');
  });

  test('dependencies: evaluated first, once; true/false/variant; inactive is false', () => {
    const base = flag('base', { groups: [{ properties: [person('plan', 'pro')] }] });
    const multi = flag('multi-dep', {
      groups: [{ properties: [], rollout_percentage: null, variant: 'blue' }],
      multivariate: { variants: [{ key: 'red', rollout_percentage: 50 }, { key: 'blue', rollout_percentage: 50 }] },
    });
    const off = flag('off-dep', { groups: [{ properties: [] }] }, { active: false });
    const dep = (target: EvaluationFlag, value: unknown, byKey = false) => ({
      key: byKey ? target.key : String(target.id),
      type: 'flag',
      value,
      operator: 'flag_evaluates_to',
    });
    const flags = [
      flag('needs-base', { groups: [{ properties: [dep(base, true)] }] }),
      flag('needs-not-base', { groups: [{ properties: [dep(base, false)] }] }),
      flag('needs-blue', { groups: [{ properties: [dep(multi, 'blue', true)] }] }),
      flag('needs-red', { groups: [{ properties: [dep(multi, 'red')] }] }),
      flag('needs-multi-on', { groups: [{ properties: [dep(multi, true)] }] }),
      flag('needs-off-false', { groups: [{ properties: [dep(off, false)] }] }),
      flag('needs-off-true', { groups: [{ properties: [dep(off, true)] }] }),
      flag('needs-number', { groups: [{ properties: [dep(base, 1)] }] }),
      base,
      multi,
      off,
    ];
    const value = (results: Map<string, FlagResult>, key: string) => results.get(key)!.enabled;
    const pro = evaluateFlags(flags, context({ personProperties: { plan: 'pro' } }));
    assert.equal(value(pro, 'needs-base'), true);
    assert.equal(value(pro, 'needs-not-base'), false);
    assert.equal(value(pro, 'needs-blue'), true);
    assert.equal(value(pro, 'needs-red'), false);
    assert.equal(value(pro, 'needs-multi-on'), true);
    assert.equal(value(pro, 'needs-off-false'), true);
    assert.equal(value(pro, 'needs-off-true'), false);
    assert.equal(value(pro, 'needs-number'), false);
    const free = evaluateFlags(flags, context({ personProperties: { plan: 'free' } }));
    assert.equal(value(free, 'needs-base'), false);
    assert.equal(value(free, 'needs-not-base'), true);
    assert.equal(pro.get('needs-base')!.reason.code, 'condition_match');

    // onlyKeys still evaluates what the flags depend on
    const only = evaluateFlags(flags, context({ personProperties: { plan: 'pro' } }), { onlyKeys: ['needs-base'] });
    assert.deepEqual([...only.keys()], ['needs-base']);
    assert.equal(only.get('needs-base')!.enabled, true);

    // evaluateFlag without a resolver: dependencies are missing
    assert.equal(evaluateFlag(flags[0], context()).reason.code, 'missing_dependency');
  });

  test('missing dependencies and cycles → missing_dependency, unless another condition set matches', () => {
    const a = flag('cycle-a', { groups: [] });
    const b = flag('cycle-b', { groups: [{ properties: [{ key: String(a.id), type: 'flag', value: true, operator: 'flag_evaluates_to' }] }] });
    a.filters = { groups: [{ properties: [{ key: String(b.id), type: 'flag', value: true, operator: 'flag_evaluates_to' }] }] };
    const orphan = flag('orphan', { groups: [{ properties: [{ key: '999999', type: 'flag', value: true, operator: 'flag_evaluates_to' }] }] });
    const deleted = flag('deleted', { groups: [{ properties: [] }] }, { deleted: true });
    const onDeleted = flag('on-deleted', { groups: [{ properties: [{ key: 'deleted', type: 'flag', value: false, operator: 'flag_evaluates_to' }] }] });
    const onCycle = flag('on-cycle', { groups: [{ properties: [{ key: 'cycle-a', type: 'flag', value: false, operator: 'flag_evaluates_to' }] }] });
    const rescued = flag('rescued', {
      groups: [
        { properties: [{ key: '999999', type: 'flag', value: true, operator: 'flag_evaluates_to' }] },
        { properties: [person('plan', 'pro')] },
      ],
    });
    const results = evaluateFlags([a, b, orphan, deleted, onDeleted, onCycle, rescued], context());
    for (const key of ['cycle-a', 'cycle-b', 'orphan', 'on-deleted', 'on-cycle', 'rescued']) {
      assert.deepEqual(results.get(key)!.reason, {
        code: 'missing_dependency',
        condition_index: null,
        description: 'Flag cannot be evaluated due to missing dependency',
      }, key);
      assert.equal(results.get(key)!.enabled, false);
    }
    assert.equal(results.has('deleted'), false, 'deleted flags are not evaluated');
    const withPro = evaluateFlags([rescued], context({ personProperties: { plan: 'pro' } }));
    assert.deepEqual(brief(withPro.get('rescued')!), [true, null, 'condition_match', 1]);
  });

  test('dependencyChains: dependencies first, the flag last; [] on cycles and missing flags', () => {
    const c = flag('c', { groups: [{ properties: [] }] });
    const b = flag('b', { groups: [{ properties: [{ key: String(c.id), type: 'flag', value: true }] }] });
    const a = flag('a', {
      groups: [
        { properties: [{ key: String(b.id), type: 'flag', value: true }] },
        { properties: [{ key: 'c', type: 'flag', value: false }] },
      ],
    });
    const x = flag('x', { groups: [] });
    const y = flag('y', { groups: [{ properties: [{ key: String(x.id), type: 'flag', value: true }] }] });
    x.filters = { groups: [{ properties: [{ key: String(y.id), type: 'flag', value: true }] }] };
    const z = flag('z', { groups: [{ properties: [{ key: String(y.id), type: 'flag', value: true }] }] });
    const lost = flag('lost', { groups: [{ properties: [{ key: 'nowhere', type: 'flag', value: true }] }] });
    const off = flag('off', { groups: [{ properties: [{ key: 'c', type: 'flag', value: true }] }] }, { active: false });
    const chains = dependencyChains([a, b, c, x, y, z, lost, off]);
    assert.deepEqual(chains.get(c.id), ['c']);
    assert.deepEqual(chains.get(b.id), ['c', 'b']);
    assert.deepEqual(chains.get(a.id), ['c', 'b', 'a']);
    assert.deepEqual(chains.get(x.id), []);
    assert.deepEqual(chains.get(y.id), []);
    assert.deepEqual(chains.get(z.id), []);
    assert.deepEqual(chains.get(lost.id), []);
    assert.deepEqual(chains.get(off.id), ['c', 'off']);
  });
});
