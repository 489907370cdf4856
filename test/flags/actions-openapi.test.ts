import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

type Operation = { security?: Record<string, string[]>[]; 'x-required-scope'?: string; requestBody?: unknown };
type Document = { paths: Record<string, Record<string, Operation>> };

let t: TestApp;
let doc: Document;
before(async () => {
  t = await startTestApp();
  doc = (await t.request({ method: 'GET', url: '/api/schema/', key: null })).json();
});
after(async () => {
  await t.close();
});

test('the flag actions, cohorts and dashboards are documented with the scopes they enforce', () => {
  const flags = '/api/projects/{project_id}/feature_flags';
  const cohorts = '/api/projects/{project_id}/cohorts';
  const expectations: [string, string, string][] = [
    [`${flags}/{id}/create_static_cohort_for_flag`, 'post', 'feature_flag:write'],
    [`${flags}/{id}/dashboard`, 'post', 'feature_flag:write'],
    [`${flags}/{id}/enrich_usage_dashboard`, 'post', 'feature_flag:write'],
    [`${flags}/{id}/has_active_dependents`, 'post', 'feature_flag:read'],
    [`${flags}/{id}/remote_config`, 'get', 'feature_flag:read'],
    [`${flags}/{id}/status`, 'get', 'feature_flag:read'],
    [`${flags}/{id}/persons_served`, 'get', 'feature_flag:read'],
    [`${flags}/bulk_keys`, 'post', 'feature_flag:read'],
    [`${flags}/user_blast_radius`, 'post', 'feature_flag:read'],
    [`${cohorts}/`, 'get', 'cohort:read'],
    [`${cohorts}/`, 'post', 'cohort:write'],
    [`${cohorts}/{id}`, 'get', 'cohort:read'],
    [`${cohorts}/{id}`, 'patch', 'cohort:write'],
    [`${cohorts}/{id}/persons`, 'get', 'cohort:read'],
    [`${cohorts}/{id}/add_persons_to_static_cohort`, 'patch', 'cohort:write'],
    [`${cohorts}/{id}/remove_person_from_static_cohort`, 'patch', 'cohort:write'],
    [`${cohorts}/activity`, 'get', 'activity_log:read'],
    ['/api/projects/{project_id}/dashboards/', 'get', 'dashboard:read'],
    ['/api/projects/{project_id}/dashboards/{id}', 'get', 'dashboard:read'],
  ];
  for (const [path, method, scope] of expectations) {
    const operation = doc.paths[path]?.[method] ?? doc.paths[path.replace(/\/$/, '')]?.[method];
    assert.ok(operation, `${method.toUpperCase()} ${path} is documented`);
    assert.equal(operation['x-required-scope'], scope, `${method} ${path}`);
  }
  // The POST actions document the flag's writable fields as their body.
  const body = JSON.stringify(doc.paths[`${flags}/{id}/dashboard`]?.post?.requestBody);
  assert.ok(body.includes('"_should_create_usage_dashboard"'));
  assert.ok(JSON.stringify(doc.paths[`${flags}/user_blast_radius`]?.post?.requestBody).includes('"condition"'));
});
