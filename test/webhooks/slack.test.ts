import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { KnownBlock } from '@slack/types';
import { slackMessage } from '../../src/webhooks/delivery/slack.ts';
import type { WebhookMessage } from '../../src/webhooks/outbox.ts';
import type { TestApp } from '../helpers/app.ts';
import { createFlag, createWebhook, startReceiver, startWebhookApp, type Json, type Receiver } from './support.ts';

/**
 * Slack's Block Kit rules for what this message uses (docs.slack.dev, block-kit reference): at
 * most 50 blocks; a section's text object is mrkdwn or plain_text, 1–3000 characters; a context
 * holds 1–10 elements, each a text object or an image; the top-level `text` is the notification
 * fallback and must not be empty. The TypeScript types of @slack/types check the shape at compile
 * time (slack.ts returns KnownBlock[]); this checks the values at run time.
 */
function assertSlackShape(body: Json): void {
  assert.deepEqual(Object.keys(body).sort(), ['blocks', 'text']);
  assert.equal(typeof body.text, 'string');
  assert.ok(body.text.length > 0 && body.text.length <= 40_000);
  assert.ok(Array.isArray(body.blocks) && body.blocks.length >= 1 && body.blocks.length <= 50);
  const textObject = (object: Json, limit: number) => {
    assert.ok(object.type === 'mrkdwn' || object.type === 'plain_text', JSON.stringify(object));
    assert.equal(typeof object.text, 'string');
    assert.ok(object.text.length >= 1 && object.text.length <= limit);
  };
  for (const block of body.blocks as KnownBlock[]) {
    if (block.type === 'section') {
      assert.ok(block.text);
      textObject(block.text as Json, 3000);
    } else if (block.type === 'context') {
      assert.ok(block.elements.length >= 1 && block.elements.length <= 10);
      for (const element of block.elements) textObject(element as Json, 3000);
    } else {
      assert.fail(`unexpected block ${block.type}`);
    }
  }
}

const message = (type: string, data: Record<string, unknown>): WebhookMessage => ({ type, timestamp: new Date().toISOString(), data });

test('a flag switched off reads as a sentence with the persons it served and a console link', () => {
  const body = slackMessage(
    message('feature_flag.updated', {
      actor: { first_name: 'Priya', email: 'priya@example.com' },
      project: { id: 1, name: 'Shop' },
      object: { id: 7, key: 'new-checkout', active: false },
      changes: [{ field: 'active', before: true, after: false }, { field: 'version', before: 1, after: 2 }],
      served_persons_24h: 12408,
    }),
    'https://flags.example.com',
  );
  assertSlackShape(body);
  assert.equal(body.text, 'Priya turned off *new-checkout* (served 12,408 persons in the last 24 h)');
  assert.deepEqual(body.blocks[1], {
    type: 'context',
    elements: [{ type: 'mrkdwn', text: '<https://flags.example.com/feature_flags/7|Open in Bellwether> · Shop' }],
  });
});

test('every event type renders within the limits; markup in names is escaped; long answers are cut', () => {
  const objects: Record<string, Record<string, unknown>> = {
    'feature_flag.created': { object: { id: 1, key: 'a<b>&c' } },
    'feature_flag.updated': { object: { id: 1, key: 'k' }, changes: [{ field: 'filters', before: {}, after: {} }] },
    'feature_flag.deleted': { object: { id: 1, key: 'k' } },
    'survey.created': { object: { id: 'u', name: 'NPS' } },
    'survey.launched': { object: { id: 'u', name: 'NPS' } },
    'survey.stopped': { object: { id: 'u', name: 'NPS' } },
    'survey.response': { survey: { id: 'u', name: 'NPS' }, object: { answers: { q: 'x'.repeat(5000) } } },
    'cohort.updated': { object: { id: 3, name: 'Pros' } },
    'webhook.ping': { object: {} },
  };
  for (const [type, data] of Object.entries(objects)) {
    const body = slackMessage(message(type, { actor: null, project: { id: 1, name: 'P' }, ...data }), null);
    assertSlackShape(body);
    assert.equal(body.blocks.length, 1, 'no link without SITE_URL');
  }
  assert.equal(slackMessage(message('feature_flag.created', { actor: null, object: { id: 1, key: 'a<b>&c' } }), null).text, 'Bellwether created the feature flag *a&lt;b&gt;&amp;c*');
});

let t: TestApp;
let receiver: Receiver;
before(async () => {
  t = await startWebhookApp();
  receiver = await startReceiver('/services/T000/B000/XXXX');
});
after(async () => {
  await t.close();
  await receiver.close();
});

test('a slack endpoint is posted the Slack body, still signed; the count comes from flag evaluations', async () => {
  const hook = await createWebhook(t, { url: receiver.url, events: ['feature_flag.updated'], format: 'slack' });
  receiver.secret = hook.secret;
  const flag = await createFlag(t, 'new-checkout');
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  const batch = ['a', 'b', 'c', 'a'].map((who) => ({ event: '$feature_flag_called', distinct_id: who, uuid: randomUUID(), properties: { $feature_flag: 'new-checkout', $feature_flag_response: true } }));
  assert.equal((await t.app.inject({ method: 'POST', url: '/batch/', payload: { api_key: rows[0].api_token, batch } })).statusCode, 200);
  await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/${flag.id}/`, payload: { active: false } });
  await t.app.webhookWorker.runOnce();
  assert.equal(receiver.received.length, 1);
  const [received] = receiver.received;
  assert.equal(received.verified, true);
  assertSlackShape(received.json);
  assert.match(received.json.text, /^\S+ turned off \*new-checkout\* \(served 3 persons in the last 24 h\)$/);
  assert.match(received.json.blocks[1].elements[0].text, new RegExp(`^<https://bellwether.example.com/feature_flags/${flag.id}\\|Open in Bellwether>`));
});
