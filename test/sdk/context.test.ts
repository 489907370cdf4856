// The context loader without a database: what it asks for, and how it degrades.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pool } from '../../src/db/pool.ts';
import type { FlagRecord } from '../../src/flags/record.ts';
import { loadContext } from '../../src/sdk/context.ts';
import { evaluateFor } from '../../src/sdk/evaluate.ts';
import { ProjectView } from '../../src/sdk/project-view.ts';

function record(id: number, key: string, extra: Partial<FlagRecord> = {}): FlagRecord {
  return {
    id, project_id: 1, key, name: '', filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }], rollout_percentage: 100 }] },
    deleted: false, active: true, archived: false, created_by_id: null, created_by: null, last_modified_by: null, created_at: new Date(), updated_at: new Date(),
    version: 1, ensure_experience_continuity: false, rollback_conditions: null, performed_rollback: null, tags: [], evaluation_tags: [],
    analytics_dashboards: [], has_enriched_analytics: null, creation_context: 'feature_flags', is_remote_configuration: null,
    has_encrypted_payloads: null, evaluation_runtime: 'all', bucketing_identifier: null, last_called_at: null, create_in_folder: null,
    should_create_usage_dashboard: false, usage_dashboard_id: null, owned_by_survey: false, experiment_set: [], has_experiment: false, change_seq: 0, ...extra,
  };
}

const view = new ProjectView(1, [record(1, 'pro'), record(2, 'continuity', { ensure_experience_continuity: true })], {
  cohorts: new Map([[7, { id: 7, isStatic: true, filters: { type: 'AND', values: [] } }]]),
  groupTypeMapping: { 0: 'company' },
});

test('one query with what the view says is needed; stored under sent properties', async () => {
  const queries: { text: string; values: unknown[] }[] = [];
  const pool = {
    query: async (config: { text: string; values: unknown[] }) => {
      queries.push(config);
      return { rows: [{ person_id: 5, properties: { plan: 'free', country: 'de' }, anon_person_id: null, static_cohorts: [], overrides: [{ person_id: 5, key: 'continuity', hash_key: 'old-anon' }], groups: [{ index: 0, key: 'acme', properties: { size: 3, tier: 'gold' } }] }] };
    },
  } as unknown as Pool;
  const { ctx, errors } = await loadContext(pool, view, {
    distinctId: 'u1',
    groups: { company: 'acme', unknown: 'x' },
    personProperties: { plan: 'pro' },
    groupProperties: { company: { size: 10 } },
  });
  assert.equal(errors, false);
  assert.equal(queries.length, 1);
  assert.deepEqual(queries[0].values.slice(0, 5), [1, 'u1', null, [], true]);
  assert.deepEqual(queries[0].values.slice(5), [[0], ['acme']], 'only groups of known types are read');
  assert.deepEqual(ctx.personProperties, { plan: 'pro', country: 'de' });
  assert.deepEqual(ctx.groupProperties, { company: { size: 10, tier: 'gold' } });
  assert.deepEqual(ctx.hashKeyOverrides, { continuity: 'old-anon' });
});

test('a failing store: errorsWhileComputingFlags, evaluated with what was sent', async () => {
  const pool = { query: async () => Promise.reject(new Error('connection refused')) } as unknown as Pool;
  const warnings: string[] = [];
  const evaluation = await evaluateFor(pool, view, { distinctId: 'u1', groups: {}, personProperties: { plan: 'pro' } }, {}, { warn: (_o, message) => warnings.push(message) });
  assert.equal(evaluation.errors, true);
  assert.equal(evaluation.flags.find((f) => f.live.record.key === 'pro')!.result.enabled, true);
  assert.equal(warnings.length, 1);
});

test('no flag selected: no query at all', async () => {
  const pool = { query: async () => assert.fail('no query expected') } as unknown as Pool;
  const evaluation = await evaluateFor(pool, view, { distinctId: 'u1', groups: {} }, { onlyKeys: ['none'] });
  assert.deepEqual(evaluation.flags, []);
});
