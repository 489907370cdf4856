import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/kernel/errors.ts';
import type { FlagFilters } from '../../src/targeting/types.ts';
import {
  checkEvaluationTagsSubset,
  checkKeyFormat,
  FLAG_OPERATORS,
  normalizeTags,
  parseKeyField,
  parseRelativeOrAbsoluteDate,
  validateBucketingIdentifier,
  validateEvaluationRuntime,
  validateFilters,
  validateKeyFormat,
  type FilterValidationContext,
  type FlagLookup,
} from '../../src/flags/validation/index.ts';

// ---------------------------------------------------------------------------------------------
// helpers

interface Expected {
  detail: string;
  code?: string;
  attr?: string | null;
}

function checkError(error: unknown, { detail, code = 'invalid_input', attr = 'filters' }: Expected): true {
  assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
  assert.deepEqual(
    { status: error.status, type: error.type, code: error.code, detail: error.message, attr: error.attr },
    { status: 400, type: 'validation_error', code, detail, attr },
  );
  return true;
}

const throwsApi = (fn: () => unknown, expected: Expected) => assert.throws(fn, (error) => checkError(error, expected));
const rejectsApi = (promise: Promise<unknown>, expected: Expected) =>
  assert.rejects(promise, (error) => checkError(error, expected));

interface MemoryFlag {
  id: number;
  key: string;
  active?: boolean;
  deleted?: boolean;
  /** Stored filters; the test fixtures are plain objects. */
  filters?: object;
}
interface MemoryCohort {
  id: number;
  name: string;
  behavioral?: boolean;
  dependsOn?: number[];
}

/** An in-memory project: live flags are the ones not marked deleted. */
function memoryLookup(flags: MemoryFlag[] = [], cohorts: MemoryCohort[] = []): FlagLookup {
  const live = flags.filter((flag) => !flag.deleted);
  const filtersOf = (flag: MemoryFlag) => (flag.filters ?? {}) as FlagFilters;
  return {
    async flagsByIds(ids) {
      return live
        .filter((flag) => ids.includes(flag.id))
        .map((flag) => ({ id: flag.id, key: flag.key, active: flag.active ?? true, filters: filtersOf(flag) }));
    },
    async allLiveFlags() {
      return live.map((flag) => ({ id: flag.id, key: flag.key, filters: filtersOf(flag) }));
    },
    async cohortsByIds(ids) {
      return cohorts
        .filter((cohort) => ids.includes(cohort.id))
        .map((cohort) => ({
          id: cohort.id,
          name: cohort.name,
          hasBehavioralFilters: cohort.behavioral ?? false,
          dependsOn: cohort.dependsOn ?? [],
        }));
    },
  };
}

const onCreate = (lookup = memoryLookup(), flagKey: string | null = 'new-flag'): FilterValidationContext => ({
  isCreate: true,
  flagId: null,
  flagKey,
  lookup,
});
const onUpdate = (flagId: number, flagKey: string, lookup = memoryLookup()): FilterValidationContext => ({
  isCreate: false,
  flagId,
  flagKey,
  lookup,
});

type Property = Record<string, unknown>;
const person = (key: string, value: unknown, operator?: string): Property =>
  operator === undefined ? { key, value, type: 'person' } : { key, value, operator, type: 'person' };
const flagDep = (key: unknown, value: unknown = true): Property => ({
  key,
  value,
  operator: 'flag_evaluates_to',
  type: 'flag',
});
const withProperties = (...properties: Property[]) => ({ groups: [{ properties, rollout_percentage: 100 }] });
const firstProperty = (filters: FlagFilters) => filters.groups?.[0]?.properties?.[0];

const variants = (...pairs: Array<[string, unknown]>) => ({
  variants: pairs.map(([key, rollout_percentage]) => ({ key, name: key, rollout_percentage })),
});

// ---------------------------------------------------------------------------------------------

describe('validateKeyFormat', () => {
  test('accepts letters, digits, hyphens and underscores', () => {
    assert.equal(validateKeyFormat('my-Flag_2'), 'my-Flag_2');
  });

  test('missing → required', () => {
    throwsApi(() => validateKeyFormat(undefined), { detail: 'This field is required.', code: 'required', attr: 'key' });
  });

  test('null → null', () => {
    throwsApi(() => validateKeyFormat(null), { detail: 'This field may not be null.', code: 'null', attr: 'key' });
  });

  test('not a string → Not a valid string.', () => {
    throwsApi(() => validateKeyFormat(123), { detail: 'Not a valid string.', attr: 'key' });
    throwsApi(() => validateKeyFormat(['a']), { detail: 'Not a valid string.', attr: 'key' });
  });

  test('empty or blank → blank', () => {
    throwsApi(() => validateKeyFormat(''), { detail: 'This field may not be blank.', code: 'blank', attr: 'key' });
    throwsApi(() => validateKeyFormat('   '), { detail: 'This field may not be blank.', code: 'blank', attr: 'key' });
  });

  test('at most 400 characters', () => {
    assert.equal(validateKeyFormat('k'.repeat(400)).length, 400);
    throwsApi(() => validateKeyFormat('k'.repeat(401)), {
      detail: 'Ensure this field has no more than 400 characters.',
      code: 'max_length',
      attr: 'key',
    });
  });

  test('other characters (spaces included, no trimming) → invalid_key', () => {
    for (const key of ['bad key', 'bad!', ' padded', 'ключ', 'a.b']) {
      throwsApi(() => validateKeyFormat(key), {
        detail: 'Only letters, numbers, hyphens (-) & underscores (_) are allowed.',
        code: 'invalid_key',
        attr: 'key',
      });
    }
  });

  test('parseKeyField checks only the field rules; checkKeyFormat only the format', () => {
    assert.equal(parseKeyField('bad key'), 'bad key');
    throwsApi(() => checkKeyFormat('bad key'), {
      detail: 'Only letters, numbers, hyphens (-) & underscores (_) are allowed.',
      code: 'invalid_key',
      attr: 'key',
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('validateFilters: shape', () => {
  test('not a dict → not_a_dict with the Python type name', async () => {
    const cases: Array<[unknown, string]> = [
      [[], 'list'],
      ['x', 'str'],
      [5, 'int'],
      [1.5, 'float'],
      [true, 'bool'],
      [null, 'NoneType'],
    ];
    for (const [raw, type] of cases) {
      await rejectsApi(validateFilters(raw, onCreate()), {
        detail: `Expected a dictionary of items but got type "${type}".`,
        code: 'not_a_dict',
      });
    }
  });

  test('create with missing or empty groups is refused', async () => {
    for (const raw of [{}, { groups: [] }, { payloads: {} }]) {
      await rejectsApi(validateFilters(raw, onCreate()), {
        detail: 'Feature flags must have at least one condition set (group).',
      });
    }
  });

  test('update may set empty groups', async () => {
    const result = await validateFilters({ groups: [] }, onUpdate(1, 'f'));
    assert.deepEqual(result, { groups: [] });
  });

  test('groups must be a list of objects', async () => {
    await rejectsApi(validateFilters({ groups: { a: 1 } }, onCreate()), {
      detail: 'Filters are not valid (groups must be a list of condition sets).',
    });
    await rejectsApi(validateFilters({ groups: [{ rollout_percentage: 5 }, 'x'] }, onCreate()), {
      detail: 'Filters are not valid (condition set 2 must be an object).',
    });
  });

  test('group rollout_percentage is null, absent or a number in [0, 100]', async () => {
    for (const rollout of ['50', 101, -1, 100.5, true, [50], {}]) {
      await rejectsApi(validateFilters({ groups: [{ properties: [], rollout_percentage: rollout }] }, onCreate()), {
        detail: 'Invalid rollout percentage in condition set 1: must be a number between 0 and 100.',
      });
    }
    const ok = await validateFilters(
      {
        groups: [
          { properties: [], rollout_percentage: 0 },
          { properties: [], rollout_percentage: 100 },
          { properties: [], rollout_percentage: 33.5 },
          { properties: [], rollout_percentage: null },
          { properties: [] },
        ],
      },
      onCreate(),
    );
    assert.deepEqual(
      ok.groups?.map((group) => group.rollout_percentage),
      [0, 100, 33.5, null, undefined],
    );
  });

  test('the condition set number in messages is 1-based', async () => {
    await rejectsApi(
      validateFilters({ groups: [{ rollout_percentage: 10 }, { rollout_percentage: 10 }, { rollout_percentage: 200 }] }, onCreate()),
      { detail: 'Invalid rollout percentage in condition set 3: must be a number between 0 and 100.' },
    );
  });

  test('properties must be a list of objects with a string or number key', async () => {
    await rejectsApi(validateFilters({ groups: [{ properties: { key: 'a' } }] }, onCreate()), {
      detail: 'Filters are not valid (properties in condition set 1 must be a list).',
    });
    await rejectsApi(validateFilters({ groups: [{ properties: [person('a', 'x'), 'email'] }] }, onCreate()), {
      detail: 'Filters are not valid (property 2 in condition set 1 must be an object).',
    });
    for (const key of [undefined, '', null, true, ['a'], { a: 1 }]) {
      await rejectsApi(validateFilters({ groups: [{ properties: [{ key, value: 'x', type: 'person' }] }] }, onCreate()), {
        detail: 'Filters are not valid (property 1 in condition set 1 needs a key, a string or a number).',
      });
    }
  });

  test("operators outside PostHog's list → invalid_operator", async () => {
    for (const [operator, shown] of [
      ['contains', 'contains'],
      ['', ''],
      ['EXACT', 'EXACT'],
      [5, '5'],
      [true, 'true'],
    ] as const) {
      await rejectsApi(validateFilters(withProperties({ key: 'a', value: 'x', operator, type: 'person' }), onCreate()), {
        detail: `Invalid operator: ${shown}`,
        code: 'invalid_operator',
      });
    }
  });

  test("every operator of PostHog's list is accepted", async () => {
    const valueFor = (operator: string): unknown => {
      if (operator.startsWith('is_date')) return '2024-01-15';
      if (operator.startsWith('semver')) return '1.2.3';
      if (operator.endsWith('_multi')) return ['a', 'b'];
      return 'x';
    };
    const lookup = memoryLookup([{ id: 7, key: 'dep' }], [{ id: 3, name: 'c' }]);
    for (const operator of FLAG_OPERATORS) {
      let property: Property = { key: 'a', value: valueFor(operator), operator, type: 'person' };
      if (operator === 'in' || operator === 'not_in') property = { key: 'id', value: 3, operator, type: 'cohort' };
      if (operator === 'flag_evaluates_to') property = flagDep('7');
      const result = await validateFilters(withProperties(property), onCreate(lookup));
      assert.equal(firstProperty(result)?.operator, operator);
    }
    assert.equal(FLAG_OPERATORS.length, 29);
  });

  test('aliases min → gte and max → lte are rewritten; a missing operator stays missing (exact)', async () => {
    const raw = {
      groups: [{ properties: [person('age', '18', 'min'), person('age', '65', 'max'), person('email', 'a@b.c')] }],
    };
    const result = await validateFilters(raw, onCreate());
    assert.deepEqual(result.groups?.[0]?.properties, [
      person('age', '18', 'gte'),
      person('age', '65', 'lte'),
      person('email', 'a@b.c'),
    ]);
    assert.equal(raw.groups[0]?.properties[0]?.operator, 'min', 'the input is not modified');
    const nullOperator = await validateFilters(withProperties({ key: 'a', value: 'x', operator: null, type: 'person' }), onCreate());
    assert.equal(firstProperty(nullOperator)?.operator, null);
  });

  test('aggregation_group_type_index is null or an integer from 0 to 4', async () => {
    for (const index of [5, -1, 1.5, '0', true]) {
      await rejectsApi(validateFilters({ groups: [{ properties: [] }], aggregation_group_type_index: index }, onCreate()), {
        detail: 'Filters are not valid (aggregation_group_type_index must be null or an integer from 0 to 4).',
      });
    }
    for (const index of [null, 0, 4]) {
      const result = await validateFilters({ groups: [{ properties: [] }], aggregation_group_type_index: index }, onCreate());
      assert.equal(result.aggregation_group_type_index, index);
    }
    await rejectsApi(validateFilters({ groups: [{ properties: [], aggregation_group_type_index: 7 }] }, onCreate()), {
      detail: 'Filters are not valid (aggregation_group_type_index in condition set 1 must be null or an integer from 0 to 4).',
    });
  });

  test('a variant override must be a string or null', async () => {
    await rejectsApi(validateFilters({ groups: [{ properties: [], variant: 5 }] }, onCreate()), {
      detail: 'Filters are not valid (variant override in condition set 1 must be a string or null).',
    });
  });

  test('description, group_type_index and negation have their types', async () => {
    await rejectsApi(validateFilters({ groups: [{ properties: [], description: 5 }] }, onCreate()), {
      detail: 'Filters are not valid (description of condition set 1 must be a string or null).',
    });
    for (const index of ['1', 9, 0.5]) {
      await rejectsApi(validateFilters(withProperties(person('a', 'x'), { ...person('b', 'y'), group_type_index: index }), onCreate()), {
        detail: 'Filters are not valid (group_type_index of property 2 in condition set 1 must be null or an integer from 0 to 4).',
      });
    }
    await rejectsApi(validateFilters(withProperties({ ...person('a', 'x'), negation: 'yes' }), onCreate()), {
      detail: 'Filters are not valid (negation of property 1 in condition set 1 must be true or false).',
    });
    const ok = await validateFilters(
      { groups: [{ properties: [{ ...person('a', 'x'), group_type_index: null, negation: false }], description: 'Beta users' }] },
      onCreate(),
    );
    assert.equal(ok.groups?.[0]?.description, 'Beta users');
  });

  test('unknown keys are kept at every level', async () => {
    const raw = {
      groups: [{ properties: [{ ...person('a', 'x', 'exact'), label: 'A' }], rollout_percentage: 10, description: 'd', extra: 1 }],
      multivariate: { variants: [{ key: 'a', rollout_percentage: 100, note: 'n' }], x: true },
      payloads: {},
      top_level: { nested: [1] },
    };
    const result = await validateFilters(raw, onCreate());
    assert.deepEqual(result, raw);
  });

  test('the first error wins', async () => {
    const raw = {
      groups: [{ properties: [{ key: 'a', value: 'x', type: 'event' }], variant: 'nope' }],
      payloads: { nope: 'not json' },
    };
    await rejectsApi(validateFilters(raw, onCreate()), {
      detail: 'Filters are not valid (can only use person, cohort, and flag properties)',
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('validateFilters: property types (person and group flags)', () => {
  test('person flags use person, cohort and flag properties only', async () => {
    for (const property of [{ key: 'a', value: 'x', type: 'event' }, { key: 'a', value: 'x' }, { key: 'a', value: 'x', type: 'group', group_type_index: 0 }]) {
      await rejectsApi(validateFilters(withProperties(property), onCreate()), {
        detail: 'Filters are not valid (can only use person, cohort, and flag properties)',
      });
    }
  });

  test("flag properties must use 'flag_evaluates_to'", async () => {
    const lookup = memoryLookup([{ id: 7, key: 'dep' }]);
    for (const operator of [undefined, 'exact']) {
      const property: Property = { key: '7', value: true, type: 'flag' };
      if (operator) property.operator = operator;
      await rejectsApi(validateFilters(withProperties(property), onCreate(lookup)), {
        detail: "Flag properties must use the 'flag_evaluates_to' operator",
      });
    }
  });

  test('group flags use group properties of their own group type only', async () => {
    const group = (properties: Property[]) => ({ groups: [{ properties }], aggregation_group_type_index: 1 });
    for (const property of [
      person('a', 'x'),
      { key: 'a', value: 'x', type: 'group', group_type_index: 0 },
      { key: 'a', value: 'x', type: 'group' },
      { key: 'id', value: 1, type: 'cohort' },
    ]) {
      await rejectsApi(validateFilters(group([property]), onCreate()), {
        detail: 'Filters are not valid (can only use group properties)',
      });
    }
    const ok = await validateFilters(group([{ key: 'name', value: 'x', type: 'group', group_type_index: 1 }]), onCreate());
    assert.equal(ok.aggregation_group_type_index, 1);
  });
});

// ---------------------------------------------------------------------------------------------

describe('validateFilters: multivariate', () => {
  const mv = (multivariate: unknown, groups: unknown[] = [{ properties: [] }]) => ({ groups, multivariate });

  test('valid variants with a float sum (33.33 + 33.33 + 33.34) are accepted', async () => {
    const result = await validateFilters(mv(variants(['a', 33.33], ['b', 33.33], ['c', 33.34])), onCreate());
    assert.deepEqual(
      result.multivariate?.variants.map((variant) => [variant.key, variant.rollout_percentage]),
      [['a', 33.33], ['b', 33.33], ['c', 33.34]],
    );
  });

  test('the sum must be 100 within ±0.01', async () => {
    for (const pairs of [[['a', 50], ['b', 40]], [['a', 50], ['b', 50.02]], [['a', 100], ['b', 0.5]]] as Array<Array<[string, number]>>) {
      await rejectsApi(validateFilters(mv(variants(...pairs)), onCreate()), {
        detail: 'Invalid variant definitions: Variant rollout percentages must sum to 100.',
      });
    }
    await validateFilters(mv(variants(['a', 50], ['b', 50.01])), onCreate());
    await validateFilters(mv(variants(['a', 50], ['b', 49.995])), onCreate());
  });

  test('null multivariate and empty variants are a boolean flag', async () => {
    assert.equal((await validateFilters(mv(null), onCreate())).multivariate, null);
    assert.deepEqual((await validateFilters(mv({ variants: [] }), onCreate())).multivariate, { variants: [] });
  });

  test('multivariate must be an object with a list of variants', async () => {
    for (const multivariate of [[], 'x', {}, { variants: 'a' }, { variants: null }]) {
      await rejectsApi(validateFilters(mv(multivariate), onCreate()), {
        detail: 'Invalid variant definitions: multivariate must be an object with a list of variants.',
      });
    }
  });

  test('each variant is an object with a non-empty string key', async () => {
    await rejectsApi(validateFilters(mv({ variants: [{ key: 'a', rollout_percentage: 100 }, 'b'] }), onCreate()), {
      detail: 'Invalid variant definitions: variant 2 must be an object.',
    });
    for (const key of [undefined, '', 5, null]) {
      await rejectsApi(validateFilters(mv({ variants: [{ key, rollout_percentage: 100 }] }), onCreate()), {
        detail: 'Invalid variant definitions: variant 1 needs a non-empty string key.',
      });
    }
  });

  test('a variant name is a string or null', async () => {
    await rejectsApi(validateFilters(mv({ variants: [{ key: 'a', name: 5, rollout_percentage: 100 }] }), onCreate()), {
      detail: "Invalid variant definitions: variant 'a' name must be a string or null.",
    });
    await validateFilters(mv({ variants: [{ key: 'a', name: null, rollout_percentage: 100 }] }), onCreate());
  });

  test('variant keys are unique', async () => {
    await rejectsApi(validateFilters(mv(variants(['a', 50], ['a', 50])), onCreate()), {
      detail: "Invalid variant definitions: variant keys must be unique ('a' appears more than once).",
    });
  });

  test('variant rollout_percentage is a number in [0, 100]', async () => {
    for (const rollout of ['50', undefined, null, -10, 110, true]) {
      await rejectsApi(validateFilters(mv(variants(['a', rollout], ['b', 50])), onCreate()), {
        detail: "Invalid variant definitions: variant 'a' needs a rollout_percentage between 0 and 100.",
      });
    }
  });

  test('a group variant override must name a variant', async () => {
    const multi = variants(['control', 50], ['test', 50]);
    await rejectsApi(validateFilters(mv(multi, [{ properties: [], variant: 'other' }]), onCreate()), {
      detail: 'Filters are not valid (variant override does not exist)',
    });
    await rejectsApi(validateFilters(mv(null, [{ properties: [], variant: 'test' }]), onCreate()), {
      detail: 'Filters are not valid (variant override does not exist)',
    });
    const ok = await validateFilters(mv(multi, [{ properties: [], variant: 'test' }, { properties: [], variant: null }]), onCreate());
    assert.equal(ok.groups?.[0]?.variant, 'test');
  });
});

// ---------------------------------------------------------------------------------------------

describe('validateFilters: per-property rules', () => {
  test('a list value holds at most 1000 items', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => `v${i}`);
    await rejectsApi(validateFilters(withProperties(person('email', many, 'exact')), onCreate()), {
      detail: 'Property group expressions of type email cannot contain more than 1000 values.',
    });
    await validateFilters(withProperties(person('email', many.slice(0, 1000), 'exact')), onCreate());
  });

  test('a cohort must exist, its dependencies too', async () => {
    const lookup = memoryLookup([], [
      { id: 1, name: 'root', dependsOn: [2] },
      { id: 2, name: 'mid', dependsOn: [3, 1] },
      { id: 3, name: 'leaf' },
      { id: 4, name: 'broken', dependsOn: [99] },
    ]);
    const cohort = (value: unknown) => withProperties({ key: 'id', value, type: 'cohort' });
    await validateFilters(cohort(1), onCreate(lookup));
    await validateFilters(cohort('1'), onCreate(lookup));
    for (const [value, shown] of [[42, '42'], ['42', '42'], ['abc', 'abc'], [null, 'null']] as const) {
      await rejectsApi(validateFilters(cohort(value), onCreate(lookup)), {
        detail: `Cohort with id ${shown} does not exist`,
        code: 'cohort_does_not_exist',
      });
    }
    await rejectsApi(validateFilters(cohort(4), onCreate(lookup)), {
      detail: 'Cohort with id 99 does not exist',
      code: 'cohort_does_not_exist',
    });
  });

  test('behavioural cohorts (here or among the dependencies) are refused', async () => {
    const lookup = memoryLookup([], [
      { id: 1, name: 'Did purchase', behavioral: true },
      { id: 2, name: 'wrapper', dependsOn: [3] },
      { id: 3, name: 'Visited pricing', behavioral: true },
    ]);
    await rejectsApi(validateFilters(withProperties({ key: 'id', value: 1, type: 'cohort' }), onCreate(lookup)), {
      detail: "Cohort 'Did purchase' with filters on events cannot be used in feature flags.",
      code: 'behavioral_cohort_found',
    });
    await rejectsApi(validateFilters(withProperties({ key: 'id', value: 2, type: 'cohort' }), onCreate(lookup)), {
      detail: "Cohort 'Visited pricing' with filters on events cannot be used in feature flags.",
      code: 'behavioral_cohort_found',
    });
  });

  test('date operators need a relative or absolute date', async () => {
    for (const operator of ['is_date_before', 'is_date_after', 'is_date_exact']) {
      for (const value of ['-30d', '30d', '12h', '2w', '6m', '1y', '2024-01-15', '2024-01-15T10:00:00Z', '2024-01-15 10:00']) {
        await validateFilters(withProperties(person('signup', value, operator)), onCreate());
      }
      for (const [value, shown] of [
        ['yesterday', 'yesterday'],
        ['10000d', '10000d'],
        ['-30x', '-30x'],
        ['2024-02-30', '2024-02-30'],
        ['', ''],
        [5, '5'],
        [null, 'null'],
        [['2024-01-15'], '["2024-01-15"]'],
      ] as const) {
        await rejectsApi(validateFilters(withProperties(person('signup', value, operator)), onCreate()), {
          detail: `Invalid date value: ${shown}`,
          code: 'invalid_date',
        });
      }
    }
  });

  test('regex, icontains and comparison operators need a string value', async () => {
    for (const operator of ['regex', 'not_regex', 'icontains', 'not_icontains', 'gt', 'gte', 'lt', 'lte']) {
      await rejectsApi(validateFilters(withProperties(person('n', 5, operator)), onCreate()), {
        detail: `Invalid value for operator ${operator}: 5`,
        code: 'invalid_value',
      });
      await validateFilters(withProperties(person('n', '5', operator)), onCreate());
    }
    await rejectsApi(validateFilters(withProperties(person('n', true, 'icontains')), onCreate()), {
      detail: 'Invalid value for operator icontains: true',
      code: 'invalid_value',
    });
    await rejectsApi(validateFilters(withProperties(person('n', ['a', 'b'], 'icontains')), onCreate()), {
      detail: 'Invalid value for operator icontains: ["a","b"]',
      code: 'invalid_value',
    });
    await rejectsApi(validateFilters(withProperties(person('n', 2.5, 'min')), onCreate()), {
      detail: 'Invalid value for operator gte: 2.5',
      code: 'invalid_value',
    });
  });

  test('regex values must compile as a JavaScript RegExp and run on the linear-time engine', async () => {
    const refused: Array<[string, string]> = [
      ['(', 'Invalid regular expression: /(/: Unterminated group'],
      ['[a-', 'Invalid regular expression: /[a-/: Unterminated character class'],
      ['(?P<name>x)', 'Invalid regular expression: /(?P<name>x)/: Invalid group'],
      ['*a', 'Invalid regular expression: /*a/: Nothing to repeat'],
      ['(?!spam)', 'lookahead and lookbehind ((?=…), (?!…), (?<=…), (?<!…)) are not supported'],
      ['(a)\\1', 'backreferences and octal escapes (\\1) are not supported'],
      ['\\p{L}', '\\p is not supported: JavaScript reads it as the letter p, other engines as something else; write p'],
      ['[[:digit:]]', 'an unescaped [ inside a character class ([[:alpha:]], nested classes) means something else to other engines; write \\['],
      ['a{2000}', 'repetition counts above 1000 are not supported ({2000})'],
    ];
    for (const operator of ['regex', 'not_regex']) {
      for (const [value, reason] of refused) {
        await rejectsApi(validateFilters(withProperties(person('email', value, operator)), onCreate()), {
          detail: `Invalid regular expression for operator ${operator}: ${value} (${reason})`,
          code: 'invalid_value',
        });
      }
      await validateFilters(withProperties(person('email', '^.+@example\\.com$', operator)), onCreate());
      await validateFilters(withProperties(person('email', '^(a+)+$', operator)), onCreate());
    }
  });

  test('in / not_in are for cohort properties only', async () => {
    for (const operator of ['in', 'not_in']) {
      await rejectsApi(validateFilters(withProperties(person('id', 'x', operator)), onCreate()), {
        detail: `The '${operator}' operator is only valid for cohort properties, not 'person' properties.`,
        code: 'invalid_operator',
      });
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('validateFilters: flag dependencies', () => {
  const flags: MemoryFlag[] = [
    { id: 1, key: 'alpha' },
    { id: 2, key: 'beta', filters: withProperties(flagDep('1')) },
    { id: 3, key: 'gamma', filters: withProperties(flagDep(2)) },
    { id: 4, key: 'off', active: false },
    { id: 5, key: 'gone', deleted: true },
  ];
  const lookup = memoryLookup(flags);

  test('a dependency on a live, enabled flag is accepted (id as string or number)', async () => {
    await validateFilters(withProperties(flagDep('1')), onCreate(lookup));
    await validateFilters(withProperties(flagDep(3, 'variant-a')), onCreate(lookup));
  });

  test('references must be integer ids', async () => {
    for (const [key, shown] of [['alpha', 'alpha'], ['1.5', '1.5'], [1.5, '1.5']] as const) {
      await rejectsApi(validateFilters(withProperties(flagDep(key)), onCreate(lookup)), {
        detail: `Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: '${shown}'`,
      });
    }
  });

  test('the flag must exist among the live flags of the project', async () => {
    for (const id of [999, 5]) {
      await rejectsApi(validateFilters(withProperties(flagDep(String(id))), onCreate(lookup)), {
        detail: `Flag dependency references non-existent flag with ID ${id}`,
      });
    }
  });

  test('a disabled flag cannot be depended on', async () => {
    await rejectsApi(validateFilters(withProperties(flagDep('4')), onCreate(lookup)), {
      detail: "Cannot create dependency on disabled flag 'off' (ID: 4). Flag dependencies must reference active flags only.",
    });
  });

  test('a flag cannot depend on itself', async () => {
    await rejectsApi(validateFilters(withProperties(flagDep('1')), onUpdate(1, 'alpha', lookup)), {
      detail: "Feature flag 'alpha' cannot depend on itself",
    });
  });

  test('cycles are found with this flag’s new filters substituted', async () => {
    await rejectsApi(validateFilters(withProperties(flagDep('2')), onUpdate(1, 'alpha', lookup)), {
      detail: 'Circular dependency detected: alpha → beta → alpha',
    });
    await rejectsApi(validateFilters(withProperties(flagDep('3')), onUpdate(1, 'alpha', lookup)), {
      detail: 'Circular dependency detected: alpha → gamma → beta → alpha',
    });
    await rejectsApi(validateFilters(withProperties(flagDep('3')), onUpdate(2, 'beta', lookup)), {
      detail: 'Circular dependency detected: beta → gamma → beta',
    });
    // x and y are stored depending on each other; x's new filters break the cycle.
    const stored = memoryLookup([
      { id: 1, key: 'x', filters: withProperties(flagDep('2')) },
      { id: 2, key: 'y', filters: withProperties(flagDep('1')) },
      { id: 3, key: 'z' },
    ]);
    await validateFilters(withProperties(flagDep('3')), onUpdate(1, 'x', stored));
    const withoutCycle = await validateFilters(withProperties(flagDep('1')), onUpdate(3, 'gamma', lookup));
    assert.equal(firstProperty(withoutCycle)?.key, '1');
  });

  test('odd stored filters of other flags do not break the cycle check', async () => {
    const odd = memoryLookup([
      { id: 1, key: 'a', filters: { groups: [{ properties: null }, 'x', { properties: [null, { type: 'flag', key: 'k' }] }] } },
      { id: 2, key: 'b', filters: { groups: 'x' } },
      { id: 3, key: 'c', filters: [] },
    ]);
    const result = await validateFilters(withProperties(flagDep('1'), flagDep('2'), flagDep('3')), onCreate(odd, 'd'));
    assert.equal(result.groups?.[0]?.properties?.length, 3);
  });

  test('a cycle already stored among other flags is reported when reached', async () => {
    const broken = memoryLookup([
      { id: 1, key: 'a', filters: withProperties(flagDep('2')) },
      { id: 2, key: 'b', filters: withProperties(flagDep('1')) },
    ]);
    await rejectsApi(validateFilters(withProperties(flagDep('1')), onCreate(broken, 'c')), {
      detail: 'Circular dependency detected: a → b → a',
    });
    // without a key (create without `key`) the cycle check is skipped, as in PostHog
    await validateFilters(withProperties(flagDep('1')), onCreate(broken, null));
  });
});

// ---------------------------------------------------------------------------------------------

describe('validateFilters: payloads', () => {
  const boolean = (payloads: unknown) => ({ groups: [{ properties: [] }], payloads });
  const multi = (payloads: unknown) => ({
    groups: [{ properties: [] }],
    multivariate: variants(['control', 50], ['test', 50]),
    payloads,
  });

  test('payloads must be a dictionary', async () => {
    for (const payloads of [[], 'x', null, 5]) {
      await rejectsApi(validateFilters(boolean(payloads), onCreate()), { detail: 'Payloads must be passed as a dictionary' });
    }
  });

  test('string values must be valid JSON', async () => {
    await rejectsApi(validateFilters(boolean({ true: '{not json' }), onCreate()), { detail: 'Payload value is not valid JSON' });
    await rejectsApi(validateFilters(boolean({ true: 'hello' }), onCreate()), { detail: 'Payload value is not valid JSON' });
    const ok = await validateFilters(boolean({ true: '{"a": 1}' }), onCreate());
    assert.deepEqual(ok.payloads, { true: '{"a": 1}' });
  });

  test('object, array, number and boolean values are JSON-encoded', async () => {
    const cases: Array<[unknown, string]> = [
      [{ a: 1, b: [true] }, '{"a":1,"b":[true]}'],
      [[1, 'x'], '[1,"x"]'],
      [42, '42'],
      [false, 'false'],
    ];
    for (const [value, stored] of cases) {
      const result = await validateFilters(boolean({ true: value }), onCreate());
      assert.deepEqual(result.payloads, { true: stored });
    }
  });

  test('multivariate payload keys must be variant keys', async () => {
    await rejectsApi(validateFilters(multi({ control: '1', other: '2' }), onCreate()), {
      detail: 'Payload keys must match a variant key for multivariate flags',
    });
    await rejectsApi(validateFilters(multi({ true: '1' }), onCreate()), {
      detail: 'Payload keys must match a variant key for multivariate flags',
    });
    const ok = await validateFilters(multi({ control: { x: 1 }, test: '"t"' }), onCreate());
    assert.deepEqual(ok.payloads, { control: '{"x":1}', test: '"t"' });
  });

  test("boolean flags take at most one payload, under 'true'", async () => {
    for (const payloads of [{ false: '1' }, { true: '1', false: '2' }, { control: '1' }]) {
      await rejectsApi(validateFilters(boolean(payloads), onCreate()), { detail: "Payload keys must be 'true' for boolean flags" });
    }
    assert.deepEqual((await validateFilters(boolean({}), onCreate())).payloads, {});
  });
});

// ---------------------------------------------------------------------------------------------

describe('validateFilters: super_groups and holdout_groups', () => {
  for (const [field, label] of [
    ['super_groups', 'super condition set'],
    ['holdout_groups', 'holdout group'],
  ] as const) {
    test(`${field} must be a list of groups with a valid rollout`, async () => {
      await rejectsApi(validateFilters({ groups: [{ properties: [] }], [field]: { a: 1 } }, onCreate()), {
        detail: `Filters are not valid (${field} must be a list of condition sets).`,
      });
      await rejectsApi(validateFilters({ groups: [{ properties: [] }], [field]: [5] }, onCreate()), {
        detail: `Filters are not valid (${label} 1 must be an object).`,
      });
      await rejectsApi(
        validateFilters({ groups: [{ properties: [] }], [field]: [{ properties: [], rollout_percentage: 150 }] }, onCreate()),
        { detail: `Invalid rollout percentage in ${label} 1: must be a number between 0 and 100.` },
      );
    });

    test(`${field} is kept as sent`, async () => {
      const groups = [{ properties: [{ key: '$feature_enrollment/x', value: ['true'], type: 'person' }], rollout_percentage: 10, variant: 'holdout-1' }];
      const result = await validateFilters({ groups: [{ properties: [] }], [field]: groups }, onCreate());
      assert.deepEqual(result[field], groups);
      const withNull = await validateFilters({ groups: [{ properties: [] }], [field]: null }, onCreate());
      assert.equal(withNull[field], null);
    });
  }
});

// ---------------------------------------------------------------------------------------------

describe('normalizeTags and checkEvaluationTagsSubset', () => {
  test('trims, lower-cases, drops empty ones and de-duplicates in order', () => {
    assert.deepEqual(normalizeTags([' Foo ', 'bar', 'FOO', '', '   ', 'Baz', 'bar'], 'tags'), ['foo', 'bar', 'baz']);
    assert.deepEqual(normalizeTags([], 'evaluation_tags'), []);
    assert.deepEqual(normalizeTags(undefined, 'tags'), []);
  });

  test('not a list → not_a_list', () => {
    for (const [raw, type] of [['a,b', 'str'], [{}, 'dict'], [5, 'int'], [true, 'bool']] as const) {
      throwsApi(() => normalizeTags(raw, 'tags'), {
        detail: `Expected a list of items but got type "${type}".`,
        code: 'not_a_list',
        attr: 'tags',
      });
    }
    throwsApi(() => normalizeTags('x', 'evaluation_tags'), {
      detail: 'Expected a list of items but got type "str".',
      code: 'not_a_list',
      attr: 'evaluation_tags',
    });
  });

  test('null → null', () => {
    throwsApi(() => normalizeTags(null, 'tags'), { detail: 'This field may not be null.', code: 'null', attr: 'tags' });
  });

  test('items must be strings', () => {
    throwsApi(() => normalizeTags(['a', 1], 'evaluation_tags'), { detail: 'Not a valid string.', attr: 'evaluation_tags' });
    throwsApi(() => normalizeTags([null], 'tags'), { detail: 'Not a valid string.', attr: 'tags' });
  });

  test('evaluation tags must be a subset of tags (non-field error, sorted)', () => {
    checkEvaluationTagsSubset(['web', 'app'], ['app', 'web', 'other']);
    checkEvaluationTagsSubset([], []);
    checkEvaluationTagsSubset(['Web'], ['web']);
    throwsApi(() => checkEvaluationTagsSubset(['web', 'b', 'a'], ['web']), {
      detail: 'Evaluation tags must be a subset of tags. Invalid evaluation tags: a, b',
      attr: null,
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('choices', () => {
  test('evaluation_runtime accepts server, client, all and both', () => {
    for (const value of ['server', 'client', 'all', 'both']) assert.equal(validateEvaluationRuntime(value), value);
  });

  test('evaluation_runtime refuses anything else', () => {
    for (const [raw, shown] of [['x', 'x'], ['Server', 'Server'], ['', ''], [5, '5'], [true, 'True']] as const) {
      throwsApi(() => validateEvaluationRuntime(raw), {
        detail: `"${shown}" is not a valid choice.`,
        code: 'invalid_choice',
        attr: 'evaluation_runtime',
      });
    }
    throwsApi(() => validateEvaluationRuntime(null), { detail: 'This field may not be null.', code: 'null', attr: 'evaluation_runtime' });
  });

  test('bucketing_identifier accepts distinct_id, device_id and null', () => {
    assert.equal(validateBucketingIdentifier('distinct_id'), 'distinct_id');
    assert.equal(validateBucketingIdentifier('device_id'), 'device_id');
    assert.equal(validateBucketingIdentifier(null), null);
  });

  test('bucketing_identifier refuses anything else', () => {
    for (const [raw, shown] of [['person_id', 'person_id'], ['', ''], [1, '1']] as const) {
      throwsApi(() => validateBucketingIdentifier(raw), {
        detail: `"${shown}" is not a valid choice.`,
        code: 'invalid_choice',
        attr: 'bucketing_identifier',
      });
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('parseRelativeOrAbsoluteDate', () => {
  const now = new Date('2024-03-15T12:30:00.000Z');
  const iso = (value: string) => parseRelativeOrAbsoluteDate(value, now)?.toISOString() ?? null;

  test('relative dates count back from now in UTC; the minus sign is optional', () => {
    assert.equal(iso('-30d'), '2024-02-14T12:30:00.000Z');
    assert.equal(iso('30d'), '2024-02-14T12:30:00.000Z');
    assert.equal(iso('6h'), '2024-03-15T06:30:00.000Z');
    assert.equal(iso('-2w'), '2024-03-01T12:30:00.000Z');
    assert.equal(iso('-1m'), '2024-02-15T12:30:00.000Z');
    assert.equal(iso('-2y'), '2022-03-15T12:30:00.000Z');
    assert.equal(iso('9999h'), new Date(now.getTime() - 9999 * 3_600_000).toISOString());
  });

  test('relative numbers of 10000 or more, unknown units and other text give null', () => {
    for (const value of ['10000d', '-5x', '5D', '- 5d', '5', 'now', '']) assert.equal(iso(value), null, value);
  });

  test('absolute ISO dates; no offset means UTC', () => {
    assert.equal(iso('2024-01-15'), '2024-01-15T00:00:00.000Z');
    assert.equal(iso('2024-01-15T10:20'), '2024-01-15T10:20:00.000Z');
    assert.equal(iso('2024-01-15 10:20:30'), '2024-01-15T10:20:30.000Z');
    assert.equal(iso('2024-01-15T10:20:30.5+02:00'), '2024-01-15T08:20:30.500Z');
    assert.equal(iso('2024-01-15T10:20:30.123456Z'), '2024-01-15T10:20:30.123Z');
    assert.equal(iso('2024-01-15T10:20:30-0530'), '2024-01-15T15:50:30.000Z');
  });

  test('impossible calendar dates and times give null', () => {
    for (const value of ['2024-02-30', '2023-02-29', '2024-13-01', '2024-00-10', '2024-01-15T24:00', '2024-01-15T10:60', '2024/01/15', 'January 5, 2024']) {
      assert.equal(iso(value), null, value);
    }
    assert.equal(iso('2024-02-29'), '2024-02-29T00:00:00.000Z');
  });
});
