// Settings → Webhooks in headless Chromium: the owner adds an endpoint (events picked), reveals its
// secret once, sends a test that a local receiver verifies with `standardwebhooks`, reads the
// deliveries log, redelivers, rotates the secret; an endpoint disabled for failing says so.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { TestApp } from '../helpers/app.ts';
import { GOOD_PASSWORD, givePassword, OWNER_EMAIL } from '../helpers/session.ts';
import { startReceiver, startWebhookApp, webhooksUrl, type Receiver } from '../webhooks/support.ts';
import { atBothSizes, launchChromium, openConsole, signInOnPage, step, type ConsolePage } from './support/console-browser.ts';

const TEST_MS = 120_000;
let t: TestApp;
let origin: string;
let browser: Browser;
let owner: ConsolePage;
let receiver: Receiver;

before(async () => {
  t = await startWebhookApp({ webhookDelivery: { intervalMs: 200 } });
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await givePassword(t);
  receiver = await startReceiver();
  browser = await launchChromium();
  owner = await openConsole(browser, origin);
});

after(async () => {
  await browser?.close().catch(() => {});
  await receiver?.close();
  await t?.close();
});

test('add an endpoint, reveal its secret once, send a test, read the log, redeliver, rotate', { timeout: TEST_MS }, async () => {
  const { page } = owner;
  await signInOnPage(owner, OWNER_EMAIL, GOOD_PASSWORD);
  await step(owner, 'the empty page', async () => {
    await page.goto('/settings/webhooks');
    await page.getByText('No webhooks yet').waitFor();
  });
  await atBothSizes(owner, 'settings-webhooks-empty', (p) => p.getByText('No webhooks yet').waitFor());

  let secret = '';
  await step(owner, 'adding the endpoint', async () => {
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Endpoint URL').fill('https://127.0.0.1:1/');
    await dialog.getByLabel('Description').fill('Deploy bot');
    await dialog.getByLabel('Survey response').check();
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    await dialog.getByRole('heading', { name: 'Webhook added' }).waitFor();
    await dialog.getByRole('button', { name: 'Reveal secret' }).click();
    secret = await dialog.getByLabel('Signing secret').inputValue();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('cell', { name: /127\.0\.0\.1:1/ }).waitFor();
  });
  assert.match(secret, /^whsec_/);
  const [created] = (await t.request({ method: 'GET', url: webhooksUrl(t.projectId) })).json().results;
  assert.deepEqual(created.events.sort(), ['feature_flag.updated', 'survey.response']);
  assert.notEqual(created.secret, secret, 'the list shows the mask only');
  // Point it at the receiver through the API (the form takes any URL; this one needs its port).
  const moved = await t.request({ method: 'PATCH', url: `${webhooksUrl(t.projectId)}${created.id}/`, payload: { url: receiver.url } });
  assert.equal(moved.statusCode, 200, moved.body);
  receiver.secret = secret;

  await step(owner, 'sending a test and reading the log', async () => {
    await page.reload();
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByRole('cell', { name: /webhook\.ping/ }).waitFor();
    await page.getByText('Delivered', { exact: true }).first().waitFor();
  });
  assert.equal(receiver.received.length, 1);
  assert.equal(receiver.received[0].verified, true, receiver.received[0].verifyError ?? '');
  assert.equal(receiver.received[0].json.type, 'webhook.ping');
  await atBothSizes(owner, 'settings-webhooks', (p) => p.getByText('Delivered', { exact: true }).first().waitFor());

  await step(owner, 'redelivering', async () => {
    await page.getByRole('button', { name: 'Redeliver' }).first().click();
    await page.getByText('Sent again').waitFor();
  });
  await until(() => receiver.received.length === 2);
  assert.equal(receiver.received[1].headers['webhook-id'], receiver.received[0].headers['webhook-id']);

  await step(owner, 'rotating the secret', async () => {
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    await dialog.getByRole('button', { name: 'Reveal secret' }).click();
    const fresh = await dialog.getByLabel('Signing secret').inputValue();
    assert.match(fresh, /^whsec_/);
    assert.notEqual(fresh, secret);
    await dialog.getByRole('button', { name: 'Done' }).click();
  });
  assert.deepEqual(owner.problems, []);
});

test('an endpoint disabled after 3 days of failures says so', { timeout: TEST_MS }, async () => {
  const { page } = owner;
  await t.db.pool.query(`UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failing', disabled_at = now(), failing_since = now() - interval '3 days'`);
  await step(owner, 'the failing state', async () => {
    await page.goto('/settings/webhooks');
    await page.getByText('Disabled: failing', { exact: true }).waitFor();
    await page.getByText(/disabled after failing every delivery for 3 days/).waitFor();
  });
  await atBothSizes(owner, 'settings-webhooks-disabled', (p) => p.getByText('Disabled: failing', { exact: true }).waitFor());
});

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > ms) throw new Error('not within time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
