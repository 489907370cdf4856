// PostHog's agent toolkit (@posthog/agent-toolkit), pointed at the service over HTTP on a loopback
// port: it reads GET /api/personal_api_keys/@current, parses scoped_teams and scoped_organizations
// as lists, and offers the tools the key's scopes allow (none at all when that read fails).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PostHogAgentToolkit } from '@posthog/agent-toolkit/integrations/ai-sdk';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { keyWith } from '../helpers/api.ts';

const FLAG_READ_TOOLS = ['feature-flag-get-all', 'feature-flag-get-definition'];
const FLAG_TOOLS = ['create-feature-flag', 'delete-feature-flag', ...FLAG_READ_TOOLS, 'update-feature-flag'];
const SURVEY_TOOLS = ['survey-create', 'survey-delete', 'survey-get', 'survey-stats', 'survey-update', 'surveys-get-all', 'surveys-global-stats'];
const DEFINITION_TOOLS = ['event-definitions-list', 'properties-list'];

type Tools = Awaited<ReturnType<PostHogAgentToolkit['getTools']>>;

let t: TestApp;
let origin: string;

function toolkitFor(key: string): PostHogAgentToolkit {
  return new PostHogAgentToolkit({ posthogPersonalApiKey: key, posthogApiBaseUrl: origin });
}

async function toolNames(key: string): Promise<string[]> {
  return Object.keys(await toolkitFor(key).getTools()).sort();
}

/** Runs one tool as an agent would and returns the text it hands back to the model. */
async function runTool(tools: Tools, name: string, input: Record<string, unknown>): Promise<string> {
  const tool = tools[name];
  assert.ok(tool?.execute, `${name} is offered`);
  const result = (await tool.execute(input, { toolCallId: 'call-1', messages: [] })) as { content: { type: string; text: string }[] };
  assert.equal(result.content[0].type, 'text');
  return result.content[0].text;
}

before(async () => {
  t = await startTestApp();
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(() => t.close());

describe('@posthog/agent-toolkit against the service', () => {
  test('a `*` key is offered the flag, survey and definition tools', async () => {
    const names = await toolNames(await keyWith(t, ['*']));
    for (const name of [...FLAG_TOOLS, ...SURVEY_TOOLS, ...DEFINITION_TOOLS]) {
      assert.ok(names.includes(name), `${name} missing from ${names.join(', ')}`);
    }
  });

  test('a feature_flag:read key is offered the flag read tools and nothing else', async () => {
    assert.deepEqual(await toolNames(await keyWith(t, ['feature_flag:read'])), FLAG_READ_TOOLS);
  });

  test('feature_flag:write implies read: the five flag tools; survey:read: the survey read tools', async () => {
    assert.deepEqual(await toolNames(await keyWith(t, ['feature_flag:write'])), FLAG_TOOLS);
    assert.deepEqual(await toolNames(await keyWith(t, ['survey:read'])), ['survey-get', 'survey-stats', 'surveys-get-all', 'surveys-global-stats']);
  });

  test('a key limited to one project is offered its tools too (scoped_teams is a list, scoped_organizations [])', async () => {
    assert.deepEqual(await toolNames(await keyWith(t, ['feature_flag:read'], { scoped_teams: [t.projectId] })), FLAG_READ_TOOLS);
  });

  test('a revoked key is offered no tools', async () => {
    const created = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'short-lived', scopes: ['*'] } });
    const { id, value } = created.json();
    assert.equal((await t.request({ method: 'DELETE', url: `/api/personal_api_keys/${id}/` })).statusCode, 204);
    assert.deepEqual(await toolNames(value), []);
  });

  test('the flag tools read the project the key reaches: list all, then one by key', async () => {
    const flag = await t.request({
      method: 'POST',
      url: `/api/projects/${t.projectId}/feature_flags/`,
      payload: { key: 'agent-visible', name: 'Seen by the agent', filters: { groups: [{ properties: [], rollout_percentage: 40 }] } },
    });
    assert.equal(flag.statusCode, 201, flag.body);
    const tools = await toolkitFor(await keyWith(t, ['feature_flag:read', 'user:read'])).getTools();

    const listed = JSON.parse(await runTool(tools, 'feature-flag-get-all', {}));
    assert.deepEqual(listed, [{ id: flag.json().id, key: 'agent-visible', name: 'Seen by the agent', active: true }]);

    const one = JSON.parse(await runTool(tools, 'feature-flag-get-definition', { flagKey: 'agent-visible' }));
    assert.equal(one.id, flag.json().id);
    assert.equal(one.filters.groups[0].rollout_percentage, 40);
  });
});
