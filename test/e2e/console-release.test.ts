// The console in headless Chromium: turning off a flag that served persons in the last 24 hours asks
// first and says how many (the list's switch and the flag page); Cancel leaves it on; deleting it
// says the same. A flag nobody called turns off at once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { GOOD_PASSWORD, givePassword, OWNER_EMAIL } from '../helpers/session.ts';
import { atBothSizes, launchChromium, openConsole, signInOnPage, step, type ConsolePage } from './support/console-browser.ts';

const TEST_MS = 120_000;

let t: TestApp;
let browser: Browser;
let opened: ConsolePage;

async function createFlag(key: string): Promise<number> {
  const response = await t.request({
    method: 'POST',
    url: `/api/projects/${t.projectId}/feature_flags/`,
    payload: { key, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().id;
}

async function stored(id: number): Promise<{ active: boolean; deleted: boolean }> {
  const { rows } = await t.db.pool.query<{ active: boolean; deleted: boolean }>('SELECT active, deleted FROM feature_flags WHERE id = $1', [id]);
  return rows[0];
}

async function calledBy(key: string, distinctIds: string[]): Promise<void> {
  for (const distinctId of distinctIds) {
    await t.db.pool.query(
      `INSERT INTO events (project_id, uuid, event, distinct_id, properties, timestamp)
       VALUES ($1, gen_random_uuid(), '$feature_flag_called', $2, $3, now() - interval '1 hour')`,
      [t.projectId, distinctId, JSON.stringify({ $feature_flag: key, $feature_flag_response: true })],
    );
  }
}

let servedId: number;
let quietId: number;

before(async () => {
  t = await startTestApp();
  const origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchChromium();
  opened = await openConsole(browser, origin);
  await givePassword(t);
  servedId = await createFlag('busy-checkout');
  quietId = await createFlag('quiet-banner');
  await calledBy('busy-checkout', ['p1', 'p2', 'p3', 'p1']);
  await signInOnPage(opened, OWNER_EMAIL, GOOD_PASSWORD);
});

after(async () => {
  await browser?.close().catch(() => {});
  await t?.close();
});

test('the list switch asks before turning off a flag that served 3 persons; Cancel keeps it on', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  const dialog = page.getByRole('dialog', { name: 'Turn off busy-checkout?' });
  await step(opened, 'the confirmation did not show', async () => {
    await page.getByRole('switch', { name: 'Disable busy-checkout' }).click();
    await dialog.getByText('busy-checkout served 3 persons in the last 24 hours.').waitFor();
  });
  await atBothSizes(opened, 'flag-turn-off-confirmation', () => dialog.getByText('served 3 persons').waitFor());
  await step(opened, 'Cancel did not close the confirmation', async () => {
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });
  assert.equal((await stored(servedId)).active, true, 'Cancel changed nothing');

  await step(opened, 'confirming did not turn the flag off', async () => {
    await page.getByRole('switch', { name: 'Disable busy-checkout' }).click();
    await dialog.getByRole('button', { name: 'Turn off' }).click();
    await page.getByText('"busy-checkout" is now disabled.').waitFor();
  });
  assert.equal((await stored(servedId)).active, false);
});

test('a flag nobody called turns off at once, without a question', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  await step(opened, 'the quiet flag did not turn off', async () => {
    await page.getByRole('switch', { name: 'Disable quiet-banner' }).click();
    await page.getByText('"quiet-banner" is now disabled.').waitFor();
  });
  assert.equal(await page.getByRole('dialog').count(), 0);
  assert.equal((await stored(quietId)).active, false);
});

test('on the flag page, the switch and Delete both say how many persons the flag served', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  const on = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/${servedId}/`, payload: { active: true } });
  assert.equal(on.statusCode, 200, on.body);
  await step(opened, "the flag page's switch did not ask", async () => {
    await page.goto(`/feature_flags/${servedId}`);
    await page.getByRole('switch', { name: 'Enabled' }).click();
    const dialog = page.getByRole('dialog', { name: 'Turn off busy-checkout?' });
    await dialog.getByText('served 3 persons').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });
  assert.equal((await stored(servedId)).active, true);
  await step(opened, 'Delete did not say how many persons', async () => {
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete busy-checkout?' });
    await dialog.getByText('busy-checkout served 3 persons in the last 24 hours.').waitFor();
    await dialog.getByRole('button', { name: 'Delete flag' }).click();
    await page.getByText('This flag is deleted').waitFor();
  });
  assert.equal((await stored(servedId)).deleted, true);
});

async function patch(id: number, payload: Record<string, unknown>): Promise<void> {
  const response = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/${id}/`, payload });
  assert.equal(response.statusCode, 200, response.body);
}

async function rolloutOf(id: number): Promise<{ rollout: number; version: number }> {
  const { rows } = await t.db.pool.query<{ filters: { groups: Array<{ rollout_percentage: number }> }; version: number }>(
    'SELECT filters, version FROM feature_flags WHERE id = $1',
    [id],
  );
  return { rollout: rows[0].filters.groups[0].rollout_percentage, version: rows[0].version };
}

test("a history entry is reverted from the flag page: a new change with the entry's before values", { timeout: TEST_MS }, async () => {
  const { page } = opened;
  const id = await createFlag('revert-me');
  await patch(id, { filters: { groups: [{ properties: [], rollout_percentage: 20 }] } });
  assert.deepEqual(await rolloutOf(id), { rollout: 20, version: 2 });
  const dialog = page.getByRole('dialog', { name: 'Revert this change to revert-me?' });
  await step(opened, 'the revert dialog did not show', async () => {
    await page.goto(`/feature_flags/${id}?tab=history`);
    await page.getByRole('button', { name: /^Revert the change of/ }).first().click();
    await dialog.getByText('filters').first().waitFor();
  });
  await atBothSizes(opened, 'flag-revert', () => dialog.getByText('version 2').waitFor());
  await step(opened, 'reverting failed', async () => {
    await dialog.getByRole('button', { name: 'Revert', exact: true }).click();
    await page.getByText('Reverted: "revert-me" is at version 3.').waitFor();
  });
  assert.deepEqual(await rolloutOf(id), { rollout: 100, version: 3 });
  const activity = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/${id}/activity/` });
  const latest = activity.json().results[0];
  assert.equal(latest.activity, 'updated');
  assert.equal(latest.user.email, OWNER_EMAIL, 'the revert is a change by the person who clicked');
});

test('a revert against a flag changed since the page loaded it is refused and overwrites nothing', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  const id = await createFlag('raced-flag');
  await patch(id, { filters: { groups: [{ properties: [], rollout_percentage: 30 }] } });
  const dialog = page.getByRole('dialog', { name: 'Revert this change to raced-flag?' });
  await step(opened, 'the revert dialog did not show', async () => {
    await page.goto(`/feature_flags/${id}?tab=history`);
    await page.getByRole('button', { name: /^Revert the change of/ }).first().click();
    await dialog.waitFor();
  });
  await patch(id, { filters: { groups: [{ properties: [], rollout_percentage: 55 }] } });
  await step(opened, 'the refusal did not show', async () => {
    await dialog.getByRole('button', { name: 'Revert', exact: true }).click();
    await dialog.locator('.notice').waitFor();
  });
  assert.deepEqual(await rolloutOf(id), { rollout: 55, version: 3 }, 'the newer change stands');
});

test('the "Deleted" filter lists deleted flags; Restore brings one back', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  assert.equal((await stored(servedId)).deleted, true, 'needs the flag deleted by an earlier test');
  await step(opened, 'the deleted flag was not listed', async () => {
    await page.goto('/feature_flags');
    await page.getByLabel('Deleted', { exact: true }).selectOption('true');
    await page.getByRole('button', { name: 'Restore busy-checkout' }).waitFor();
  });
  assert.equal(await page.getByRole('link', { name: 'quiet-banner' }).count(), 0, 'live flags are not in the deleted list');
  await atBothSizes(opened, 'flags-deleted-filter', () => page.getByRole('button', { name: 'Restore busy-checkout' }).waitFor());
  await step(opened, 'Restore failed', async () => {
    await page.getByRole('button', { name: 'Restore busy-checkout' }).click();
    await page.getByText('Restored "busy-checkout".').waitFor();
    await page.getByRole('button', { name: 'Restore busy-checkout' }).waitFor({ state: 'detached' });
  });
  assert.equal((await stored(servedId)).deleted, false);
});
