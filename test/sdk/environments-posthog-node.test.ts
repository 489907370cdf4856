import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PostHog } from 'posthog-node';
import { startSdkApp, type Json, type SdkTestApp } from './support.ts';

/** Two environments of one project in one service: posthog-node with each one's tokens sees only that environment's flags. */
describe('posthog-node against two environments of one project', () => {
  let t: SdkTestApp;
  let staging: Json;
  const clients: PostHog[] = [];
  const flag = (key: string, rollout: number) => ({ key, name: key, active: true, filters: { groups: [{ properties: [], rollout_percentage: rollout }] } });
  const create = async (environment: number, body: Json) => {
    const res = await t.request({ method: 'POST', url: `/api/environments/${environment}/feature_flags/`, payload: body });
    assert.equal(res.statusCode, 201, res.body);
  };
  const client = (token: string, secret?: string) => {
    const made = new PostHog(token, {
      host: t.url,
      personalApiKey: secret,
      featureFlagsPollingInterval: 600_000,
      flushAt: 1000,
      flushInterval: 0,
      disableGeoip: true,
      fetchRetryCount: 0,
    });
    clients.push(made);
    return made;
  };

  before(async () => {
    t = await startSdkApp();
    await t.listen();
    const res = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/environments/`, payload: { name: 'Staging' } });
    assert.equal(res.statusCode, 201, res.body);
    staging = res.json();
    await create(t.projectId, flag('production-only', 100));
    await create(t.projectId, flag('shared', 100));
    await create(staging.id, flag('staging-only', 100));
    await create(staging.id, flag('shared', 0));
  });
  after(async () => {
    for (const each of clients) await each.shutdown();
    await t.close();
  });

  test('evaluated by the service (/flags): each token its own environment', async () => {
    const production = await client(t.token).getAllFlags('alice');
    assert.deepEqual(production, { 'production-only': true, shared: true });
    const inStaging = await client(staging.api_token).getAllFlags('alice');
    assert.deepEqual(inStaging, { 'staging-only': true, shared: false });
  });

  test("evaluated locally from each environment's definitions (its secret token)", async () => {
    const production = client(t.token, t.secret);
    const inStaging = client(staging.api_token, staging.secret_api_token);
    await production.reloadFeatureFlags();
    await inStaging.reloadFeatureFlags();
    assert.ok(production.isLocalEvaluationReady() && inStaging.isLocalEvaluationReady());
    assert.deepEqual(await production.getAllFlags('bob', { onlyEvaluateLocally: true }), { 'production-only': true, shared: true });
    assert.deepEqual(await inStaging.getAllFlags('bob', { onlyEvaluateLocally: true }), { 'staging-only': true, shared: false });
  });

  test("one environment's secret token does not read the other's definitions", async () => {
    const crossed = await t.app.inject({
      method: 'GET',
      url: `/api/feature_flag/local_evaluation?token=${t.token}`,
      headers: { authorization: `Bearer ${staging.secret_api_token}` },
    });
    assert.equal(crossed.statusCode, 403);
    assert.equal(crossed.json().detail, 'The project token and the secret API key belong to different projects.');
  });
});
