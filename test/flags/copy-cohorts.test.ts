import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CohortNode } from '../../src/cohorts/store.ts';
import { CohortCopyRefusal, MAX_COHORT_DEPTH, planCohortCopy, remapCohortIds } from '../../src/flags/actions/copy-cohorts.ts';

const refersTo = (...ids: number[]) => ({
  properties: { type: 'AND', values: ids.map((id) => ({ type: 'OR', values: [{ type: 'cohort', key: 'id', value: id }] })) },
});
const person = { properties: { type: 'AND', values: [{ type: 'person', key: 'email', value: 'a@b.c', operator: 'exact' }] } };
const node = (id: number, name: string, filters: Record<string, unknown>, is_static = false): CohortNode => ({ id, name, is_static, filters });
const byId = (...nodes: CohortNode[]) => new Map(nodes.map((n) => [n.id, n]));

test('a nested chain is created referenced-first; a same-name cohort in the target is reused', () => {
  const source = byId(node(1, 'top', refersTo(2)), node(2, 'middle', refersTo(3)), node(3, 'leaf', person), node(4, 'shared', person));
  const plan = planCohortCopy([1, 4], source, new Map([['shared', 40]]));
  assert.deepEqual(plan.toCreate.map((n) => n.id), [3, 2, 1]);
  assert.deepEqual([...plan.reused], [[4, 40]]);
});

test('a reused cohort is not followed; a static cohort is copied without following its filters', () => {
  const source = byId(node(1, 'top', refersTo(2)), node(2, 'there', refersTo(99)), node(5, 'list', refersTo(98), true));
  const plan = planCohortCopy([1, 5], source, new Map([['there', 7]]));
  assert.deepEqual(plan.toCreate.map((n) => n.id), [1, 5]);
});

test('cycles do not loop; each cohort is created once', () => {
  const source = byId(node(1, 'a', refersTo(2)), node(2, 'b', refersTo(1, 2)));
  const plan = planCohortCopy([1, 2, 1], source, new Map());
  assert.deepEqual(plan.toCreate.map((n) => n.id).sort(), [1, 2]);
});

test('an id the source project does not hold, or a chain too deep, is refused', () => {
  assert.throws(() => planCohortCopy([1], byId(node(1, 'a', refersTo(77))), new Map()), CohortCopyRefusal);
  const chain = Array.from({ length: MAX_COHORT_DEPTH + 2 }, (_, i) => node(i + 1, `c${i}`, i === MAX_COHORT_DEPTH + 1 ? person : refersTo(i + 2)));
  assert.throws(() => planCohortCopy([1], byId(...chain), new Map()), /levels deep/);
});

test('cohort ids in flag and cohort filters are remapped, other values untouched, input unchanged', () => {
  const flagFilters = {
    groups: [{ properties: [{ type: 'cohort', key: 'id', value: 1 }, { type: 'person', key: 'id', value: 1 }, { type: 'cohort', key: 'id', value: '3' }], rollout_percentage: 50 }],
  };
  const out = remapCohortIds(flagFilters, new Map([[1, 10], [3, 30]]));
  assert.deepEqual(out.groups[0].properties.map((p) => p.value), [10, 1, 30]);
  assert.equal(flagFilters.groups[0].properties[0].value, 1);
  assert.deepEqual(remapCohortIds(refersTo(2, 5), new Map([[2, 20]])), refersTo(20, 5));
});
