// The release-conditions editor's mapping between a flag's `filters` and its form (web/src/flags):
// every shape the API accepts comes back unchanged, edits produce what the API expects, and the
// form's own checks and the server's errors land on the field they are about.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Cohort, FlagFilters, FlagProperty } from '../../web/src/api/types.ts';
import { FLAG_OPERATORS } from '../../src/targeting/operators.ts';
import { validateFilters, type FlagLookup } from '../../src/flags/validation/index.ts';
import { filtersToForm, formToFilters, type FiltersForm } from '../../web/src/flags/filters-form.ts';
import { evenSplit, formIssues, issuesAt, serverIssuePath, variantSum } from '../../web/src/flags/filters-issues.ts';
import { listValues, newProperty, operatorsFor, valueKind, withOperator, withType } from '../../web/src/flags/property-operators.ts';
import { buildScenario } from '../evaluation/support/scenario.ts';

const person = (key: string, value: unknown, operator?: FlagProperty['operator']): FlagProperty =>
  operator === undefined ? { key, value, type: 'person' } : { key, value, operator, type: 'person' };
const variants = (...pairs: Array<[string, number]>) => ({ variants: pairs.map(([key, rollout_percentage]) => ({ key, name: key, rollout_percentage })) });

/** Shapes the API accepts, from its validation tests and the evaluation engine's. */
const CORPUS: FlagFilters[] = [
  { groups: [] },
  { groups: [{ properties: [], rollout_percentage: 0 }, { properties: [], rollout_percentage: 100 }, { properties: [], rollout_percentage: 33.5 }, { properties: [], rollout_percentage: null }, { properties: [] }] },
  { groups: [{ rollout_percentage: 10 }] },
  { groups: [{ properties: [person('age', '18', 'gte'), person('age', '65', 'lte'), person('email', 'a@b.c')] }] },
  { groups: [{ properties: [{ key: 'a', value: 'x', operator: null, type: 'person' }] }] },
  { groups: [{ properties: [] }], aggregation_group_type_index: null },
  { groups: [{ properties: [] }], aggregation_group_type_index: 0 },
  { groups: [{ properties: [{ ...person('a', 'x'), group_type_index: null, negation: false }], description: 'Beta users' }] },
  { groups: [{ properties: [{ ...person('a', 'x', 'exact'), label: 'A' }], rollout_percentage: 10, description: 'd', extra: 1 }] },
  { groups: [{ properties: [{ key: 'name', value: 'x', type: 'group', group_type_index: 1 }] }], aggregation_group_type_index: 1 },
  { groups: [{ properties: [] }], multivariate: variants(['a', 33.33], ['b', 33.33], ['c', 33.34]) },
  { groups: [{ properties: [] }], multivariate: null },
  { groups: [{ properties: [] }], multivariate: { variants: [] } },
  { groups: [{ properties: [] }], multivariate: { variants: [{ key: 'a', name: null, rollout_percentage: 100 }] } },
  { groups: [{ properties: [] }], multivariate: { variants: [{ key: 'a', rollout_percentage: 100, description: 'kept' }], extra_key: true } },
  { groups: [{ properties: [], variant: 'test' }, { properties: [], variant: null }], multivariate: variants(['control', 50], ['test', 50]) },
  { groups: [{ properties: [{ key: 'id', value: 1, type: 'cohort' }] }] },
  { groups: [{ properties: [{ key: 'id', value: '1', type: 'cohort', operator: 'not_in', negation: true }] }] },
  { groups: [{ properties: [{ key: '1', value: true, operator: 'flag_evaluates_to', type: 'flag' }, { key: '3', value: 'variant-a', operator: 'flag_evaluates_to', type: 'flag' }] }] },
  { groups: [{ properties: [person('signup', '-30d', 'is_date_after'), person('signup', '2024-01-31', 'is_date_before')] }] },
  { groups: [{ properties: [person('email', '^.+@example\\.com$', 'regex'), person('email', ['a', 'b'], 'is_not')] }] },
  { groups: [{ properties: [person('n', '5', 'gt'), person('v', '1.2.3', 'semver_gte'), person('x', 'is_set', 'is_set')] }] },
  { groups: [{ properties: [] }], payloads: { true: '{"a": 1}' } },
  { groups: [{ properties: [] }], payloads: { true: '{"a":1,"b":[true]}' } },
  { groups: [{ properties: [] }], payloads: {} },
  { groups: [{ properties: [] }], multivariate: variants(['control', 50], ['test', 50]), payloads: { control: '{"x":1}', test: '"t"' } },
  { groups: [{ properties: [] }], multivariate: variants(['control', 50], ['test', 50]), payloads: { test: '42' } },
  { groups: [{ properties: [] }], super_groups: [{ properties: [{ key: '$feature_enrollment/x', value: ['true'], type: 'person' }], rollout_percentage: 10, variant: 'holdout-1' }] },
  { groups: [{ properties: [] }], holdout_groups: null },
  { groups: [{ properties: [], rollout_percentage: 100 }], holdout: { id: 1, exclusion_percentage: 10 } },
];

/** A project where cohorts 1–9 and flags 1–9 exist, so dependency and cohort shapes validate. */
const lookup: FlagLookup = {
  async flagsByIds(ids) {
    return ids.filter((id) => id < 10).map((id) => ({ id, key: `flag-${id}`, active: true, filters: { groups: [] } }));
  },
  async allLiveFlags() {
    return Array.from({ length: 9 }, (_, i) => ({ id: i + 1, key: `flag-${i + 1}`, filters: { groups: [] } }));
  },
  async cohortsByIds(ids) {
    return ids.filter((id) => id < 10).map((id) => ({ id, name: `cohort ${id}`, hasBehavioralFilters: false, dependsOn: [] }));
  },
};
const onUpdate = { isCreate: false, flagId: 50, flagKey: 'edited', lookup };

// The console reads filters as the API answers them: stored ones (the server's type) included.
const roundTrip = (filters: object) => formToFilters(filtersToForm(structuredClone(filters) as FlagFilters));

describe('filters ↔ form: round trips', () => {
  test('every shape in the corpus is accepted by the API, and comes back unchanged, as sent and as stored', async () => {
    for (const filters of CORPUS) {
      const stored = await validateFilters(structuredClone(filters), onUpdate);
      assert.deepEqual(roundTrip(filters), filters, JSON.stringify(filters));
      assert.deepEqual(roundTrip(stored), stored, JSON.stringify(stored));
    }
  });

  test("the evaluation tests' generated flags (every operator, cohorts, dependencies, variants, payloads) come back unchanged", () => {
    let checked = 0;
    const operatorsSeen = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5]) {
      for (const flag of buildScenario('current', seed).flags) {
        assert.deepEqual(roundTrip(flag.filters), flag.filters, `${flag.key}: ${JSON.stringify(flag.filters)}`);
        for (const group of flag.filters.groups ?? []) for (const property of group.properties ?? []) if (property.operator) operatorsSeen.add(property.operator);
        checked += 1;
      }
    }
    assert.ok(checked > 100, `only ${checked} generated flags`);
    assert.ok(operatorsSeen.size >= 15, `the generated corpus used only ${[...operatorsSeen].join(', ')}`);
  });

  test('the form does not alias its input: editing the form leaves the loaded filters alone', () => {
    const filters: FlagFilters = { groups: [{ properties: [person('a', ['x'], 'exact')], rollout_percentage: 50 }] };
    const before = structuredClone(filters);
    const form = filtersToForm(filters);
    form.groups![0].rollout_percentage = 10;
    form.groups![0].properties![0].key = 'b';
    assert.deepEqual(filters, before);
  });

  test('odd shapes the editor does not model are kept as they came', () => {
    const odd = { groups: [{ properties: [{ no_key: 1 }], rollout_percentage: 5 }], multivariate: { variants: 'x' }, payloads: { true: 5 } } as unknown as FlagFilters;
    assert.deepEqual(roundTrip(odd), odd);
  });
});

describe('filters ↔ form: edits', () => {
  const base = (): FiltersForm => filtersToForm({ groups: [{ properties: [], rollout_percentage: 100 }] });

  test('a multivariate flag with two condition sets, payloads and an override comes out as the API expects', async () => {
    const form = base();
    form.multivariate = {
      variants: evenSplit(2).map((rollout, index) => ({ uid: `v${index}`, key: ['control', 'test'][index], name: null, rollout_percentage: rollout, extra: {} })),
      extra: {},
    };
    form.multivariate.variants[1].payload = { text: '{"color": "blue"}' };
    const email = { ...newProperty('person'), key: 'email' };
    form.groups![0].properties = [withOperator({ ...email, value: ['a@example.com', 'b@example.com'] }, 'exact')];
    form.groups![0].variant = 'test';
    form.groups!.push({ uid: 'g2', properties: [{ ...withOperator({ ...newProperty('person'), key: 'plan' }, 'icontains'), value: 'pro' }], rollout_percentage: 25, extra: {} });
    const filters = formToFilters(form);
    assert.deepEqual(filters, {
      groups: [
        { properties: [{ key: 'email', type: 'person', operator: 'exact', value: ['a@example.com', 'b@example.com'] }], rollout_percentage: 100, variant: 'test' },
        { properties: [{ key: 'plan', type: 'person', operator: 'icontains', value: 'pro' }], rollout_percentage: 25 },
      ],
      multivariate: { variants: [{ key: 'control', name: null, rollout_percentage: 50 }, { key: 'test', name: null, rollout_percentage: 50 }] },
      payloads: { test: '{"color": "blue"}' },
    });
    assert.deepEqual(formIssues(form), []);
    await validateFilters(structuredClone(filters), onUpdate);
  });

  test("a payload follows its variant's new key; a cleared payload is removed; back to boolean drops variants", () => {
    const form = filtersToForm({ groups: [{ properties: [] }], multivariate: variants(['a', 50], ['b', 50]), payloads: { a: '1', b: '2' } });
    form.multivariate!.variants[0].key = 'renamed';
    form.multivariate!.variants[1].payload = { text: '  ', original: '2' };
    assert.deepEqual(formToFilters(form).payloads, { renamed: '1' });
    form.multivariate = null;
    form.booleanPayload = { text: '{"on": true}' };
    const filters = formToFilters(form);
    assert.equal(filters.multivariate, null);
    assert.deepEqual(filters.payloads, { true: '{"on": true}' });
  });

  test('an edited payload is sent as its JSON text; an unchanged one as it was stored', () => {
    const form = filtersToForm({ groups: [{ properties: [] }], payloads: { true: '{"a": 1}' } });
    assert.deepEqual(formToFilters(form).payloads, { true: '{"a": 1}' });
    form.booleanPayload = { ...form.booleanPayload!, text: '[1, 2]' };
    assert.deepEqual(formToFilters(form).payloads, { true: '[1, 2]' });
  });

  test('operators reshape the value: lists for equals, text for contains, the operator itself for is set', () => {
    const property = { ...newProperty('person'), key: 'plan', value: ['pro', 'team'] };
    assert.deepEqual(withOperator(property, 'icontains').value, 'pro');
    assert.deepEqual(withOperator(withOperator(property, 'icontains'), 'is_not').value, ['pro']);
    assert.equal(withOperator(property, 'is_set').value, 'is_set');
    assert.deepEqual(withOperator(withOperator(property, 'is_set'), 'exact').value, []);
    assert.equal(withOperator(withOperator(property, 'is_not_set'), 'regex').value, '');
    assert.deepEqual(listValues('one'), ['one']);
    assert.deepEqual(listValues([1, true]), ['1', 'true']);
  });

  test('each property type offers the operators the engine supports for it, and every engine operator is offered somewhere', () => {
    assert.deepEqual(operatorsFor('cohort'), ['in', 'not_in']);
    assert.deepEqual(operatorsFor('flag'), ['flag_evaluates_to']);
    assert.ok(!operatorsFor('person').includes('in'));
    const offered = new Set(['person', 'group', 'cohort', 'flag'].flatMap((type) => operatorsFor(type)));
    assert.deepEqual([...offered].sort(), [...FLAG_OPERATORS].sort());
    assert.equal(valueKind('person', 'is_date_after'), 'date');
    assert.equal(valueKind(undefined, null), 'list', 'no operator means exact');
  });

  test('changing a property type starts a fresh filter of that type in the same place', () => {
    const property = { ...newProperty('person'), key: 'email', value: ['x'] };
    const cohort = withType(property, 'cohort');
    assert.equal(cohort.uid, property.uid);
    assert.deepEqual({ ...cohort, uid: '' }, { uid: '', type: 'cohort', key: 'id', operator: 'in', value: '', extra: {} });
    assert.deepEqual(withType(property, 'group', 2).group_type_index, 2);
  });

  test('evenSplit gives whole percentages that add up to 100', () => {
    for (let count = 1; count <= 7; count += 1) assert.equal(evenSplit(count).reduce((a, b) => a + b, 0), 100);
    assert.deepEqual(evenSplit(3), [34, 33, 33]);
  });
});

describe('form issues and server errors', () => {
  test('the form names each problem at its field', () => {
    const form = filtersToForm({
      groups: [
        { properties: [person('', ['x'], 'exact'), person('email', [], 'exact'), person('signup', 'last tuesday', 'is_date_after'), { key: 'id', value: '', type: 'cohort' }], rollout_percentage: 120, variant: 'gone' },
      ],
      multivariate: { variants: [{ key: 'a', rollout_percentage: 60 }, { key: 'a', rollout_percentage: 30 }, { key: 'b c', rollout_percentage: 10 }] },
    });
    form.multivariate!.variants[0].payload = { text: 'not json' };
    const issues = formIssues(form);
    const at = (path: string) => issuesAt(issues, path);
    assert.deepEqual(at('filters__groups__0__rollout_percentage'), ['A percentage between 0 and 100.']);
    assert.deepEqual(at('filters__groups__0__variant'), ['This variant does not exist any more.']);
    assert.deepEqual(at('filters__groups__0__properties__0__key'), ['Name the property.']);
    assert.deepEqual(at('filters__groups__0__properties__1__value'), ['Enter at least one value.']);
    assert.equal(at('filters__groups__0__properties__2__value').length, 1);
    assert.deepEqual(at('filters__groups__0__properties__3__value'), ['Choose a cohort.']);
    assert.deepEqual(at('filters__multivariate__variants__1__key'), ['Variant keys must be unique.']);
    assert.deepEqual(at('filters__multivariate__variants__2__key'), ['Letters, numbers, - and _ only.']);
    assert.equal(at('filters__multivariate__variants__0__payload').length, 1);
    assert.deepEqual(at('filters__multivariate'), []);
    form.multivariate!.variants[2].rollout_percentage = 5;
    assert.equal(variantSum(form), 95);
    assert.deepEqual(issuesAt(formIssues(form), 'filters__multivariate'), ['Variant rollout percentages must add up to 100 (now 95).']);
  });

  test('a valid form has no issues; relative and absolute dates both pass', () => {
    const form = filtersToForm({ groups: [{ properties: [person('signup', '-30d', 'is_date_after'), person('signup', '2024-01-31', 'is_date_before')] }] });
    assert.deepEqual(formIssues(form), []);
  });

  test("the server's errors map to the editor's places", () => {
    assert.equal(serverIssuePath('key', 'This field is required.'), 'key');
    assert.equal(serverIssuePath('filters__groups__1__rollout_percentage', 'x'), 'filters__groups__1__rollout_percentage');
    assert.equal(serverIssuePath('filters', 'Invalid rollout percentage in condition set 3: must be a number between 0 and 100.'), 'filters__groups__2');
    assert.equal(serverIssuePath('filters', 'Invalid variant definitions: Variant rollout percentages must sum to 100.'), 'filters__multivariate');
    assert.equal(serverIssuePath('filters', 'Payload value is not valid JSON'), 'filters__payloads');
    assert.equal(serverIssuePath('filters', 'Circular dependency detected: a → b → a'), 'filters');
    assert.equal(serverIssuePath(null, 'A server error occurred.'), null);
  });
});

describe('cohort filters ↔ form', () => {
  test('OR-of-AND person and cohort filters come back unchanged; other shapes are not edited', async () => {
    const { cohortFiltersToForm, cohortFormToFilters } = await import('../../web/src/cohorts/cohort-form.ts');
    const editable: NonNullable<Cohort['filters']> = {
      properties: {
        type: 'OR' as const,
        values: [
          { type: 'AND' as const, values: [{ type: 'person', key: 'plan', operator: 'exact', value: ['pro'] }, { type: 'cohort', key: 'id', value: 3, negation: true }] },
          { type: 'AND' as const, values: [{ type: 'person', key: 'email', operator: 'icontains', value: '@example.com' }] },
        ],
      },
    };
    const groups = cohortFiltersToForm(structuredClone(editable));
    assert.ok(groups);
    assert.deepEqual(cohortFormToFilters(groups), editable);
    assert.equal(cohortFiltersToForm({ properties: { type: 'AND', values: [] } }), null, 'a top-level AND is shown, not edited');
    assert.equal(cohortFiltersToForm({ properties: { type: 'OR', values: [{ type: 'AND', values: [{ type: 'behavioral', key: 'x', value: 'performed_event' }] }] } }), null);
    assert.equal(cohortFiltersToForm({ properties: { type: 'OR', values: [{ type: 'AND', values: [{ type: 'OR', values: [] }] }] } }), null, 'deeper nesting is not edited');
    assert.deepEqual(cohortFiltersToForm(null), []);
  });
});
