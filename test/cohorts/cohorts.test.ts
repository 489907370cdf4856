import assert from 'node:assert/strict';
import pg from 'pg';
import { after, before, describe, test } from 'node:test';
import { CHANGES_CHANNEL } from '../../src/kernel/changes/bus.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  and,
  assertError,
  cohortRef,
  cohortsUrl,
  createCohort,
  filtersOf,
  getCohort,
  insertPerson,
  keyWith,
  or,
  otherProject,
  patchCohort,
  person,
  type Json,
} from './support.ts';
import { eventually } from '../helpers/eventually.ts';

const COHORT_FIELDS = [
  'id', 'name', 'description', 'groups', 'deleted', 'filters', 'query', 'version', 'pending_version', 'is_calculating',
  'created_by', 'created_at', 'last_calculation', 'errors_calculating', 'last_error_message', 'count', 'is_static',
  'cohort_type', 'experiment_set',
];

let t: TestApp;
let proA: { id: number; uuid: string };
let proB: { id: number; uuid: string };
let free: { id: number; uuid: string };
let anon: { id: number; uuid: string };

before(async () => {
  t = await startTestApp();
  proA = await insertPerson(t, ['pro-a', 'pro-a-2'], { plan: 'pro', email: 'a@example.com', age: 31 });
  proB = await insertPerson(t, ['pro-b'], { plan: 'pro', email: 'b@corp.io', age: 19 });
  free = await insertPerson(t, ['free-c'], { plan: 'free', email: 'c@example.com' });
  anon = await insertPerson(t, ['anon-d'], {});
});
after(async () => {
  await t.close();
});

const proFilters = filtersOf(and(person('plan', 'pro')));

describe('create', () => {
  test('a dynamic cohort answers 201 with PostHog’s fields and its count computed by the engine', async () => {
    const cohort = await createCohort(t, { name: 'Pro users', description: 'paying', filters: proFilters });
    for (const field of COHORT_FIELDS) assert.ok(field in cohort, `missing ${field}`);
    assert.equal(cohort.name, 'Pro users');
    assert.equal(cohort.description, 'paying');
    assert.equal(cohort.is_static, false);
    assert.equal(cohort.cohort_type, 'person_property');
    assert.equal(cohort.version, 1);
    assert.equal(cohort.count, 2);
    assert.equal(cohort.is_calculating, false);
    assert.match(cohort.last_calculation, /Z$/);
    assert.deepEqual(cohort.filters, { properties: { type: 'AND', values: [{ type: 'person', key: 'plan', value: 'pro', operator: 'exact' }] } });
    assert.deepEqual(cohort.groups, []);
    assert.equal(cohort.created_by.email, 'admin@bellwether.local');
  });

  test('OR groups, negation and nested groups follow the engine', async () => {
    const cohort = await createCohort(t, {
      name: 'Not pro, or from corp.io',
      filters: filtersOf(or(and(person('plan', 'pro', 'exact', { negation: true })), and(person('email', 'corp.io', 'icontains')))),
    });
    // free-c and anon-d are not pro; pro-b is on corp.io.
    assert.equal(cohort.count, 3);
  });

  test('a cohort may reference another (nested), and the count follows it', async () => {
    const pro = await createCohort(t, { name: 'pro', filters: proFilters });
    const adults = await createCohort(t, { name: 'pro adults', filters: filtersOf(and(cohortRef(pro.id), person('age', '21', 'gte'))) });
    assert.equal(adults.count, 1);
    const members = await t.request({ method: 'GET', url: `${cohortsUrl()}${adults.id}/persons/` });
    assert.equal(members.statusCode, 200, members.body);
    assert.deepEqual(members.json().results.map((p: Json) => p.distinct_ids), [['pro-a', 'pro-a-2']]);
    const first = members.json().results[0];
    assert.equal(first.uuid, proA.uuid);
    assert.equal(first.name, 'a@example.com');
    assert.equal(first.type, 'person');
  });

  test('an unknown or deleted cohort reference is refused; so is a loop', async () => {
    assertError(await t.request({ method: 'POST', url: cohortsUrl(), payload: { name: 'x', filters: filtersOf(and(cohortRef(987654))) } }), 400, {
      type: 'validation_error',
      code: 'cohort_does_not_exist',
      detail: 'Cohort with id 987654 does not exist',
      attr: 'filters',
    });
    const a = await createCohort(t, { name: 'loop a', filters: proFilters });
    const b = await createCohort(t, { name: 'loop b', filters: filtersOf(and(cohortRef(a.id))) });
    assertError(await patchCohort(t, a.id, { filters: filtersOf(and(cohortRef(b.id))) }), 400, {
      detail: 'Cohorts cannot reference other cohorts in a loop.',
      attr: 'filters',
    });
    assertError(await patchCohort(t, a.id, { filters: filtersOf(and(cohortRef(a.id))) }), 400, {
      detail: 'Cohorts cannot reference other cohorts in a loop.',
    });
    const gone = await createCohort(t, { name: 'gone', filters: proFilters });
    assert.equal((await patchCohort(t, gone.id, { deleted: true })).statusCode, 200);
    assertError(await t.request({ method: 'POST', url: cohortsUrl(), payload: { filters: filtersOf(and(cohortRef(gone.id))) } }), 400, {
      code: 'cohort_does_not_exist',
    });
  });

  test('a cohort of another project cannot be referenced', async () => {
    const elsewhere = await otherProject(t);
    const foreign = await createCohort(t, { name: 'foreign', filters: proFilters }, elsewhere);
    assertError(await t.request({ method: 'POST', url: cohortsUrl(), payload: { filters: filtersOf(and(cohortRef(foreign.id))) } }), 400, {
      code: 'cohort_does_not_exist',
    });
  });

  test('behavioral filters are stored; such a cohort has no count and cannot list persons', async () => {
    const behavioral = {
      type: 'behavioral', key: '$pageview', value: 'performed_event', event_type: 'events', time_value: 30, time_interval: 'day',
    };
    const cohort = await createCohort(t, { name: 'Visitors', filters: filtersOf(and(behavioral)) });
    assert.equal(cohort.cohort_type, 'behavioral');
    assert.equal(cohort.count, null);
    assert.equal(cohort.last_calculation, null);
    assert.equal(cohort.is_calculating, false);
    assert.deepEqual(cohort.filters.properties.values[0], behavioral);
    const persons = await t.request({ method: 'GET', url: `${cohortsUrl()}${cohort.id}/persons/` });
    assertError(persons, 400, { type: 'validation_error' });
  });

  test('bad filters answer 400 on filters', async () => {
    const cases: Array<[unknown, string, string?]> = [
      [{ nope: 1 }, "Must contain a 'properties' key with type and values"],
      [filtersOf({ type: 'XOR', values: [] }), 'A cohort filter group\'s type must be "AND" or "OR", not XOR.'],
      [filtersOf({ type: 'AND', values: 'x' }), "A cohort filter group's values must be a list."],
      [filtersOf(and({ type: 'person', key: 'plan', value: 'pro' })), 'Missing required keys for person filter: operator'],
      [filtersOf(and({ type: 'person', key: 'plan', operator: 'exact' })), 'Missing required keys for person filter: value'],
      [filtersOf(and(person('plan', 'pro', 'sounds_like'))), 'Invalid operator: sounds_like', 'invalid_operator'],
      [filtersOf(and(person('plan', 'pro', 'in'))), 'Invalid operator: in', 'invalid_operator'],
      [filtersOf(and(person('signup', 'yesterday', 'is_date_before'))), "Invalid date value 'yesterday' for operator 'is_date_before'. Expected a relative date (e.g., '-7d', '30d') or an ISO 8601 date (e.g., '2024-01-15').", 'invalid_date'],
      [filtersOf(and(person('name', '(', 'regex'))), 'Invalid regular expression for operator regex: ( (Invalid regular expression: /(/: Unterminated group)', 'invalid_value'],
      [filtersOf(and(person('name', '(?=a)b', 'regex'))), 'Invalid regular expression for operator regex: (?=a)b (lookahead and lookbehind ((?=…), (?!…), (?<=…), (?<!…)) are not supported)', 'invalid_value'],
      [filtersOf(and(person('name', '(a)\\1', 'not_regex'))), 'Invalid regular expression for operator not_regex: (a)\\1 (backreferences and octal escapes (\\1) are not supported)', 'invalid_value'],
      [filtersOf(and({ type: 'group', key: 'x', value: 1, operator: 'exact' })), 'Cohort filters can use person, cohort and behavioral properties, not group.', 'invalid_property_type'],
      [filtersOf(and({ type: 'behavioral', key: '$pageview', value: 'performed_event' })), 'Missing required keys for behavioral filter: event_type'],
      [filtersOf(and({ type: 'cohort', key: 'name', value: 1 })), 'A cohort filter must have key "id".'],
    ];
    for (const [filters, detail, code] of cases) {
      const response = await t.request({ method: 'POST', url: cohortsUrl(), payload: { name: 'bad', filters } });
      assertError(response, 400, { type: 'validation_error', detail, attr: 'filters', ...(code ? { code } : {}) });
    }
    assertError(await t.request({ method: 'POST', url: cohortsUrl(), payload: { name: 'no filters' } }), 400, { attr: 'filters' });
    assertError(await t.request({ method: 'POST', url: cohortsUrl(), payload: { name: 5, filters: proFilters } }), 400, { attr: 'name' });
    assertError(await t.request({ method: 'POST', url: cohortsUrl(), payload: { filters: proFilters, query: { kind: 'HogQLQuery' } } }), 400, { attr: 'query' });
    assertError(await t.request({ method: 'POST', url: cohortsUrl(), payload: { filters: proFilters, groups: [{ properties: [] }] } }), 400, { attr: 'groups' });
    assertError(await t.request({ method: 'POST', url: cohortsUrl(), payload: '{"name":', headers: { 'content-type': 'application/json' } }), 400, { code: 'parse_error' });
  });

  test('min/max operator aliases are stored as gte/lte; cohort ids sent as strings are stored as numbers', async () => {
    const pro = await createCohort(t, { name: 'alias target', filters: proFilters });
    const cohort = await createCohort(t, { name: 'aliases', filters: filtersOf(and(person('age', '20', 'min'), cohortRef(String(pro.id) as unknown as number))) });
    assert.equal(cohort.filters.properties.values[0].operator, 'gte');
    assert.equal(cohort.filters.properties.values[1].value, pro.id);
    assert.equal(cohort.count, 1);
  });
});

describe('list and retrieve', () => {
  test('the list is paginated, newest first, without deleted cohorts; search and hide_behavioral_cohorts filter it', async () => {
    const elsewhere = await otherProject(t);
    const mine = [];
    for (let i = 0; i < 3; i++) mine.push(await createCohort(t, { name: `Listed ${i}`, filters: proFilters }, elsewhere));
    await createCohort(t, { name: 'Listed behavioral', filters: filtersOf(and({ type: 'behavioral', key: 'x', value: 'performed_event', event_type: 'events' })) }, elsewhere);
    const deleted = await createCohort(t, { name: 'Listed deleted', filters: proFilters }, elsewhere);
    const del = await t.request({ method: 'PATCH', url: `${cohortsUrl(elsewhere)}${deleted.id}/`, payload: { deleted: true } });
    assert.equal(del.statusCode, 200, del.body);

    const page = await t.request({ method: 'GET', url: `${cohortsUrl(elsewhere)}?limit=2` });
    assert.equal(page.statusCode, 200, page.body);
    const body = page.json();
    assert.equal(body.count, 4);
    assert.equal(body.results.length, 2);
    assert.equal(body.results[0].name, 'Listed behavioral');
    assert.match(body.next, /offset=2/);
    assert.equal(body.previous, null);

    const searched = await t.request({ method: 'GET', url: `${cohortsUrl(elsewhere)}?search=listed%201` });
    assert.deepEqual(searched.json().results.map((c: Json) => c.name), ['Listed 1']);
    const noBehavioral = await t.request({ method: 'GET', url: `${cohortsUrl(elsewhere)}?hide_behavioral_cohorts=true` });
    assert.equal(noBehavioral.json().count, 3);
    assertError(await t.request({ method: 'GET', url: `${cohortsUrl(elsewhere)}?limit=-1` }), 400, { attr: 'limit' });
  });

  test('unknown ids, ids of another project and malformed ids are 404; deleted cohorts stay readable', async () => {
    const elsewhere = await otherProject(t);
    const foreign = await createCohort(t, { name: 'theirs', filters: proFilters }, elsewhere);
    for (const id of ['999999', String(foreign.id), 'abc', '99999999999']) {
      assertError(await t.request({ method: 'GET', url: `${cohortsUrl()}${id}/` }), 404, { code: 'not_found' });
      assertError(await patchCohort(t, id, { name: 'x' }), 404, { code: 'not_found' });
      assertError(await t.request({ method: 'GET', url: `${cohortsUrl()}${id}/persons/` }), 404, { code: 'not_found' });
    }
    const cohort = await createCohort(t, { name: 'to delete', filters: proFilters });
    await patchCohort(t, cohort.id, { deleted: true });
    const read = await getCohort(t, cohort.id);
    assert.equal(read.deleted, true);
  });

  test('DELETE is not offered (405); PATCH deleted is the way', async () => {
    const cohort = await createCohort(t, { name: 'undeletable', filters: proFilters });
    const response = await t.request({ method: 'DELETE', url: `${cohortsUrl()}${cohort.id}/` });
    assert.equal(response.statusCode, 405);
    assert.match(String(response.headers.allow), /PATCH/);
  });
});

describe('update', () => {
  test('PATCH changes name, description and filters, bumps the version, recounts and logs activity', async () => {
    const cohort = await createCohort(t, { name: 'Editable', filters: proFilters });
    const renamed = await patchCohort(t, cohort.id, { name: 'Edited', description: 'now free', filters: filtersOf(and(person('plan', 'free'))) });
    assert.equal(renamed.statusCode, 200, renamed.body);
    const body = renamed.json();
    assert.equal(body.name, 'Edited');
    assert.equal(body.description, 'now free');
    assert.equal(body.version, 2);
    assert.equal(body.count, 1);
    const again = (await patchCohort(t, cohort.id, { name: 'Edited again' })).json();
    assert.equal(again.version, 3);
    assert.equal(again.count, 1);

    const activity = await t.request({ method: 'GET', url: `${cohortsUrl()}${cohort.id}/activity/` });
    assert.equal(activity.statusCode, 200, activity.body);
    const entries = activity.json().results;
    assert.deepEqual(entries.map((e: Json) => e.activity), ['updated', 'updated', 'created']);
    assert.equal(entries[0].scope, 'Cohort');
    assert.equal(entries[0].item_id, String(cohort.id));
    assert.deepEqual(entries[0].detail.changes.map((c: Json) => c.field), ['name']);
    assert.deepEqual(entries[1].detail.changes.map((c: Json) => c.field).sort(), ['description', 'filters', 'name']);
    const all = await t.request({ method: 'GET', url: `${cohortsUrl()}activity/` });
    assert.ok(all.json().total_count >= 3);
  });

  test('soft delete and restore write deleted/restored activity', async () => {
    const cohort = await createCohort(t, { name: 'Ephemeral', filters: proFilters });
    const deleted = await patchCohort(t, cohort.id, { deleted: true });
    assert.equal(deleted.json().deleted, true);
    const listed = (await t.request({ method: 'GET', url: `${cohortsUrl()}?limit=1000` })).json();
    assert.ok(!listed.results.some((c: Json) => c.id === cohort.id));
    const restored = await patchCohort(t, cohort.id, { deleted: false });
    assert.equal(restored.json().deleted, false);
    const activity = (await t.request({ method: 'GET', url: `${cohortsUrl()}${cohort.id}/activity/` })).json().results;
    assert.deepEqual(activity.map((e: Json) => e.activity), ['restored', 'deleted', 'created']);
  });

  test('is_static cannot change; a static cohort’s criteria cannot be edited', async () => {
    const dynamic = await createCohort(t, { name: 'Stays dynamic', filters: proFilters });
    assertError(await patchCohort(t, dynamic.id, { is_static: true }), 400, { attr: 'is_static' });
    const snapshot = await createCohort(t, { name: 'Snapshot', is_static: true, filters: proFilters });
    assertError(await patchCohort(t, snapshot.id, { filters: filtersOf(and(person('plan', 'free'))) }), 400, {
      detail: 'Editing the criteria of a static cohort is not supported yet. Create a new static cohort instead.',
    });
  });

  test('a cohort used by an active flag or by another cohort cannot be deleted', async () => {
    const used = await createCohort(t, { name: 'Flagged', filters: proFilters });
    const flag = await t.request({
      method: 'POST',
      url: `/api/projects/${t.projectId}/feature_flags/`,
      payload: { key: 'uses-cohort', name: 'Uses cohort', filters: { groups: [{ properties: [cohortRef(used.id)], rollout_percentage: 100 }] } },
    });
    assert.equal(flag.statusCode, 201, flag.body);
    assertError(await patchCohort(t, used.id, { deleted: true }), 400, {
      detail: 'This cohort is used in 1 active feature flag(s): Uses cohort. Please remove the cohort from these feature flags before deleting it.',
      attr: null,
    });
    // Disabled flags do not hold the cohort.
    const off = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/${flag.json().id}/`, payload: { active: false } });
    assert.equal(off.statusCode, 200, off.body);

    const parent = await createCohort(t, { name: 'Parent', filters: filtersOf(and(cohortRef(used.id))) });
    assertError(await patchCohort(t, used.id, { deleted: true }), 400, {
      detail: 'This cohort is used as criteria in 1 other cohort(s): Parent. Please remove this cohort from those cohort definitions before deleting it.',
    });
    assert.equal((await patchCohort(t, parent.id, { deleted: true })).statusCode, 200);
    assert.equal((await patchCohort(t, used.id, { deleted: true })).statusCode, 200);
  });

  test('a cohort used by an active flag cannot gain filters on events, itself or through a dependency', async () => {
    const behavioral = { type: 'behavioral', key: '$pageview', value: 'performed_event', event_type: 'events' };
    const inner = await createCohort(t, { name: 'Inner', filters: proFilters });
    const outer = await createCohort(t, { name: 'Outer', filters: filtersOf(and(cohortRef(inner.id))) });
    const events = await createCohort(t, { name: 'Event based', filters: filtersOf(and(behavioral)) });
    const flag = await t.request({
      method: 'POST',
      url: `/api/projects/${t.projectId}/feature_flags/`,
      payload: { key: 'outer-flag', filters: { groups: [{ properties: [cohortRef(outer.id)], rollout_percentage: 100 }] } },
    });
    assert.equal(flag.statusCode, 201, flag.body);
    assertError(await patchCohort(t, inner.id, { filters: filtersOf(and(behavioral)) }), 400, {
      code: 'behavioral_cohort_found',
      detail: 'Behavioral filters cannot be added to cohorts used in feature flags.',
      attr: 'filters',
    });
    assertError(await patchCohort(t, inner.id, { filters: filtersOf(and(cohortRef(events.id))) }), 400, {
      code: 'behavioral_cohort_found',
      detail: "A cohort dependency (Event based) has filters based on events. These cohorts can't be used in feature flags.",
    });
    // Unused cohorts may filter on events.
    assert.equal((await patchCohort(t, events.id, { filters: filtersOf(or(behavioral, person('plan', 'pro'))) })).statusCode, 200);
  });
});

describe('static cohorts', () => {
  test('created from person UUIDs; persons added by UUID or distinct id and removed; count and version follow', async () => {
    const cohort = await createCohort(t, { name: 'Hand picked', is_static: true, _create_static_person_ids: [proA.uuid, '00000000-0000-4000-8000-000000000000'] });
    assert.equal(cohort.is_static, true);
    assert.equal(cohort.cohort_type, 'static');
    assert.equal(cohort.filters, null);
    assert.equal(cohort.count, 1);

    const url = `${cohortsUrl()}${cohort.id}/`;
    const add = await t.request({ method: 'PATCH', url: `${url}add_persons_to_static_cohort/`, payload: { person_ids: [free.uuid] } });
    assert.equal(add.statusCode, 200, add.body);
    assert.deepEqual(add.json(), { success: true });
    const byDistinct = await t.request({ method: 'PATCH', url: `${url}add_persons_to_static_cohort/`, payload: { distinct_ids: ['anon-d', 'nobody'] } });
    assert.equal(byDistinct.statusCode, 200, byDistinct.body);
    let read = await getCohort(t, cohort.id);
    assert.equal(read.count, 3);
    assert.equal(read.version, 3);

    const members = await t.request({ method: 'GET', url: `${url}persons/?limit=2` });
    assert.equal(members.statusCode, 200, members.body);
    assert.deepEqual(members.json().results.map((p: Json) => p.uuid), [proA.uuid, free.uuid]);
    assert.match(members.json().next, /offset=2/);
    const rest = await t.request({ method: 'GET', url: `${url}persons/?limit=2&offset=2` });
    assert.deepEqual(rest.json().results.map((p: Json) => p.uuid), [anon.uuid]);
    assert.equal(rest.json().next, null);

    const remove = await t.request({ method: 'PATCH', url: `${url}remove_person_from_static_cohort/`, payload: { person_id: free.uuid } });
    assert.equal(remove.statusCode, 200, remove.body);
    const again = await t.request({ method: 'PATCH', url: `${url}remove_person_from_static_cohort/`, payload: { distinct_id: 'free-c' } });
    assert.equal(again.statusCode, 200, again.body);
    read = await getCohort(t, cohort.id);
    assert.equal(read.count, 2);

    const activity = (await t.request({ method: 'GET', url: `${url}activity/` })).json().results.map((e: Json) => e.activity);
    assert.deepEqual(activity, ['person_removed_manually', 'person_removed_manually', 'persons_added_manually', 'persons_added_manually', 'created']);
  });

  test('membership errors', async () => {
    const cohort = await createCohort(t, { name: 'Static errors', is_static: true });
    assert.equal(cohort.count, 0);
    const url = `${cohortsUrl()}${cohort.id}/`;
    const dynamic = await createCohort(t, { name: 'Dynamic', filters: proFilters });
    assertError(await t.request({ method: 'PATCH', url: `${cohortsUrl()}${dynamic.id}/add_persons_to_static_cohort/`, payload: { person_ids: [proA.uuid] } }), 400, {
      detail: 'Can only add users to static cohorts',
    });
    assertError(await t.request({ method: 'PATCH', url: `${cohortsUrl()}${dynamic.id}/remove_person_from_static_cohort/`, payload: { person_id: proA.uuid } }), 400, {
      detail: 'Can only remove users from static cohorts',
    });
    assertError(await t.request({ method: 'PATCH', url: `${url}add_persons_to_static_cohort/`, payload: {} }), 400, { detail: 'person_ids must be a list' });
    assertError(await t.request({ method: 'PATCH', url: `${url}add_persons_to_static_cohort/`, payload: { person_ids: [] } }), 400, { detail: 'person_ids cannot be empty' });
    assertError(await t.request({ method: 'PATCH', url: `${url}add_persons_to_static_cohort/`, payload: { person_ids: 'x' } }), 400, { attr: 'person_ids' });
    assertError(await t.request({ method: 'PATCH', url: `${url}add_persons_to_static_cohort/`, payload: { person_ids: ['not-a-uuid'] } }), 400, {
      detail: 'Must be a valid UUID.',
      attr: 'person_ids__0',
    });
    assertError(await t.request({ method: 'PATCH', url: `${url}add_persons_to_static_cohort/`, payload: { person_ids: ['00000000-0000-4000-8000-000000000000'] } }), 400, {
      detail: 'No valid users to add to cohort',
    });
    assertError(await t.request({ method: 'PATCH', url: `${url}remove_person_from_static_cohort/`, payload: {} }), 400, { detail: 'person_id is required' });
    assertError(await t.request({ method: 'PATCH', url: `${url}remove_person_from_static_cohort/`, payload: { person_id: '00000000-0000-4000-8000-000000000000' } }), 404, {
      detail: "Person with this UUID does not exist in the cohort's team",
    });
    assertError(await t.request({ method: 'POST', url: cohortsUrl(), payload: { filters: proFilters, _create_static_person_ids: [proA.uuid] } }), 400, {
      attr: '_create_static_person_ids',
    });
  });

  test('a static cohort created with criteria is filled once with the persons matching them', async () => {
    const snapshot = await createCohort(t, { name: 'Pro snapshot', is_static: true, filters: proFilters });
    assert.equal(snapshot.count, 2);
    assert.equal(snapshot.is_calculating, false);
    const members = (await t.request({ method: 'GET', url: `${cohortsUrl()}${snapshot.id}/persons/` })).json().results;
    assert.deepEqual(members.map((p: Json) => p.uuid).sort(), [proA.uuid, proB.uuid].sort());
    // A later pro user does not join a static cohort.
    const late = await insertPerson(t, ['pro-late'], { plan: 'pro' });
    assert.equal((await getCohort(t, snapshot.id)).count, 2);
    await t.db.pool.query('DELETE FROM persons WHERE id = $1', [late.id]);
  });

  test('a dynamic cohort may reference a static one: membership comes from the stored members', async () => {
    const picked = await createCohort(t, { name: 'Picked', is_static: true, _create_static_person_ids: [free.uuid, proB.uuid] });
    const pickedPro = await createCohort(t, { name: 'Picked pro', filters: filtersOf(and(cohortRef(picked.id), person('plan', 'pro'))) });
    assert.equal(pickedPro.count, 1);
    const members = (await t.request({ method: 'GET', url: `${cohortsUrl()}${pickedPro.id}/persons/` })).json().results;
    assert.deepEqual(members.map((p: Json) => p.uuid), [proB.uuid]);
  });
});

describe('flag validation sees cohorts', () => {
  const flagWith = (key: string, cohortId: unknown) =>
    t.request({
      method: 'POST',
      url: `/api/projects/${t.projectId}/feature_flags/`,
      payload: { key, filters: { groups: [{ properties: [{ type: 'cohort', key: 'id', value: cohortId }], rollout_percentage: 100 }] } },
    });

  test('an existing dynamic or static cohort is accepted', async () => {
    const dynamic = await createCohort(t, { name: 'For flags', filters: proFilters });
    assert.equal((await flagWith('flag-dynamic-cohort', dynamic.id)).statusCode, 201);
    const fixed = await createCohort(t, { name: 'Static for flags', is_static: true });
    assert.equal((await flagWith('flag-static-cohort', fixed.id)).statusCode, 201);
  });

  test('a missing or deleted cohort is cohort_does_not_exist', async () => {
    assertError(await flagWith('flag-missing-cohort', 424242), 400, {
      code: 'cohort_does_not_exist',
      detail: 'Cohort with id 424242 does not exist',
      attr: 'filters',
    });
    const deleted = await createCohort(t, { name: 'Deleted for flags', filters: proFilters });
    await patchCohort(t, deleted.id, { deleted: true });
    assertError(await flagWith('flag-deleted-cohort', deleted.id), 400, { code: 'cohort_does_not_exist' });
  });

  test('a cohort filtering on events, directly or through a nested cohort, is behavioral_cohort_found', async () => {
    const behavioral = await createCohort(t, {
      name: 'Clickers',
      filters: filtersOf(and({ type: 'behavioral', key: 'click', value: 'performed_event', event_type: 'events' })),
    });
    assertError(await flagWith('flag-behavioral', behavioral.id), 400, {
      code: 'behavioral_cohort_found',
      detail: "Cohort 'Clickers' with filters on events cannot be used in feature flags.",
    });
    const wrapper = await createCohort(t, { name: 'Wrapper', filters: filtersOf(and(cohortRef(behavioral.id))) });
    assertError(await flagWith('flag-behavioral-nested', wrapper.id), 400, { code: 'behavioral_cohort_found' });
  });
});

describe('change notices and scopes', () => {
  test('every cohort change publishes a `cohort` notice', async () => {
    const listener = new pg.Client({ connectionString: t.db.url });
    await listener.connect();
    const notices: Json[] = [];
    listener.on('notification', (message) => notices.push(JSON.parse(message.payload ?? '{}').change));
    await listener.query(`LISTEN ${CHANGES_CHANNEL}`);
    try {
      const cohort = await createCohort(t, { name: 'Noticed', is_static: true });
      await patchCohort(t, cohort.id, { name: 'Noticed again' });
      await t.request({ method: 'PATCH', url: `${cohortsUrl()}${cohort.id}/add_persons_to_static_cohort/`, payload: { person_ids: [proA.uuid] } });
      const ofCohort = async () => notices.filter((n) => n.kind === 'cohort' && n.id === cohort.id);
      const mine = await eventually('three notices of the cohort', ofCohort, (found) => found.length >= 3);
      assert.equal(mine.length, 3);
      assert.deepEqual(mine[0], { kind: 'cohort', projectId: t.projectId, id: cohort.id });
    } finally {
      await listener.end();
    }
  });

  test('cohort:read may read but not write; no key is 401; a failed write leaves nothing behind', async () => {
    const read = await keyWith(t, ['cohort:read']);
    const write = await keyWith(t, ['cohort:write']);
    const flagsOnly = await keyWith(t, ['feature_flag:write']);
    assert.equal((await t.request({ method: 'GET', url: cohortsUrl(), key: read })).statusCode, 200);
    const created = await t.request({ method: 'POST', url: cohortsUrl(), key: read, payload: { name: 'scoped', filters: proFilters } });
    assertError(created, 403, { code: 'permission_denied', detail: "API key missing required scope 'cohort:write'" });
    assert.equal((await t.request({ method: 'POST', url: cohortsUrl(), key: write, payload: { name: 'written', filters: proFilters } })).statusCode, 201);
    assert.equal((await t.request({ method: 'GET', url: cohortsUrl(), key: write })).statusCode, 200);
    assertError(await t.request({ method: 'GET', url: cohortsUrl(), key: flagsOnly }), 403, { detail: "API key missing required scope 'cohort:read'" });
    assertError(await t.request({ method: 'GET', url: cohortsUrl(), key: null }), 401, { code: 'not_authenticated' });
    const cohort = await createCohort(t, { name: 'Scoped static', is_static: true });
    assertError(
      await t.request({ method: 'PATCH', url: `${cohortsUrl()}${cohort.id}/add_persons_to_static_cohort/`, key: read, payload: { person_ids: [proA.uuid] } }),
      403,
      { code: 'permission_denied' },
    );
    assertError(await t.request({ method: 'GET', url: `${cohortsUrl()}activity/`, key: read }), 403, { detail: "API key missing required scope 'activity_log:read'" });
    const { rows } = await t.db.pool.query("SELECT 1 FROM cohorts WHERE name = 'scoped'");
    assert.equal(rows.length, 0);
  });
});
