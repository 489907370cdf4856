// The console in headless Chromium against the real service: a person signs in on the sign-in page;
// a multivariate flag with two condition sets is created through the editor and /flags?v=2 answers
// by it; the list's switch turns it off and /flags follows; the flag's history names who changed it;
// the editor shows the server's errors beside their field. A cookie write without the CSRF token is
// refused, and ten wrong passwords are throttled on the sign-in page.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { GOOD_PASSWORD, givePassword, OWNER_EMAIL, personWithPassword } from '../helpers/session.ts';
import { atBothSizes, launchChromium, openConsole, signInOnPage, step, STEP_MS, type ConsolePage } from './support/console-browser.ts';
import { eventually } from '../helpers/eventually.ts';

const TEST_MS = 120_000;

let t: TestApp;
let origin: string;
let token: string;
let browser: Browser;
let opened: ConsolePage;

before(async () => {
  t = await startTestApp();
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  token = rows[0].api_token;
  browser = await launchChromium();
  opened = await openConsole(browser, origin);
  await givePassword(t);
});

after(async () => {
  await browser?.close().catch(() => {});
  await t?.close();
});

interface FlagsAnswer {
  flags: Record<string, { enabled: boolean; variant: string | null; reason: { code: string } }>;
}

async function evaluate(distinctId: string, personProperties: Record<string, string>): Promise<FlagsAnswer['flags']> {
  const response = await fetch(`${origin}/flags/?v=2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, distinct_id: distinctId, person_properties: personProperties }),
  });
  assert.equal(response.status, 200);
  return ((await response.json()) as FlagsAnswer).flags;
}

const conditionSet = (page: Page, n: number) => page.getByRole('region', { name: `Condition set ${n}` });

let flagId: number;

test('a person who is not signed in gets the sign-in page at any address, and signs in there', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  await step(opened, 'the sign-in page did not show', async () => {
    await page.goto('/feature_flags/123');
    await page.getByRole('heading', { name: 'Sign in to Bellwether' }).waitFor();
  });
  await atBothSizes(opened, 'sign-in', (p) => p.getByRole('heading', { name: 'Sign in to Bellwether' }).waitFor());
  await signInOnPage(opened, OWNER_EMAIL, GOOD_PASSWORD);
  const cookies = await opened.context.cookies();
  assert.equal(cookies.find((c) => c.name === 'bellwether_session')?.httpOnly, true, 'the session cookie is HttpOnly');
  assert.ok(cookies.find((c) => c.name === 'bellwether_csrftoken'), 'the CSRF cookie is set');
});

test('a multivariate flag with two condition sets is created in the editor; /flags?v=2 answers by it', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  await step(opened, 'the empty flag list did not show', () => page.getByText('No feature flags yet').waitFor());
  await step(opened, 'filling in the editor failed', async () => {
    await page.getByRole('link', { name: 'Create your first flag' }).click();
    await page.getByLabel('Key', { exact: true }).fill('checkout-redesign');
    await page.getByLabel('Description', { exact: true }).fill('The redesigned checkout');
    await page.getByText('Multiple variants', { exact: true }).click();
    await page.getByLabel('Variant 2 payload').fill('{"color": "blue"}');

    const first = conditionSet(page, 1);
    await first.getByRole('button', { name: '+ Add filter' }).click();
    await first.getByLabel('Condition set 1, filter 1: property name').fill('email');
    await first.getByLabel('Condition set 1, filter 1: values').fill('vip@example.com');
    await first.getByLabel('Condition set 1, filter 1: values').press('Enter');
    await first.getByLabel('Variant', { exact: true }).selectOption('test');

    await page.getByRole('button', { name: '+ Add condition set' }).click();
    const second = conditionSet(page, 2);
    await second.getByRole('button', { name: '+ Add filter' }).click();
    await second.getByLabel('Condition set 2, filter 1: property name').fill('plan');
    await second.getByLabel('Condition set 2, filter 1: operator').selectOption('icontains');
    await second.getByLabel('Condition set 2, filter 1: value').fill('pro');
    await second.getByRole('spinbutton', { name: 'Roll out to' }).fill('100');
  });
  await atBothSizes(opened, 'flag-new', (p) => p.getByRole('heading', { name: 'New feature flag' }).waitFor());
  await step(opened, 'saving the flag failed', async () => {
    await page.getByRole('button', { name: 'Create flag' }).first().click();
    await page.waitForURL(/\/feature_flags\/\d+$/);
    await page.getByRole('heading', { name: 'checkout-redesign' }).waitFor();
  });
  flagId = Number(new URL(page.url()).pathname.split('/').pop());

  const stored = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/${flagId}/` });
  assert.deepEqual(stored.json().filters, {
    groups: [
      { properties: [{ key: 'email', type: 'person', operator: 'exact', value: ['vip@example.com'] }], rollout_percentage: 100, variant: 'test' },
      { properties: [{ key: 'plan', type: 'person', operator: 'icontains', value: 'pro' }], rollout_percentage: 100 },
    ],
    multivariate: { variants: [{ key: 'control', name: null, rollout_percentage: 50 }, { key: 'test', name: null, rollout_percentage: 50 }] },
    payloads: { test: '{"color": "blue"}' },
  });

  const vip = await evaluate('vip-person', { email: 'vip@example.com' });
  assert.deepEqual({ enabled: vip['checkout-redesign'].enabled, variant: vip['checkout-redesign'].variant }, { enabled: true, variant: 'test' });
  const pro = await evaluate('pro-person', { email: 'someone@else.org', plan: 'Pro yearly' });
  assert.equal(pro['checkout-redesign'].enabled, true);
  assert.ok(['control', 'test'].includes(pro['checkout-redesign'].variant ?? ''), 'the second set splits by the variant rollout');
  const nobody = await evaluate('free-person', { email: 'someone@else.org', plan: 'free' });
  assert.deepEqual({ enabled: nobody['checkout-redesign'].enabled, reason: nobody['checkout-redesign'].reason.code }, { enabled: false, reason: 'no_condition_match' });

});

test('switching the flag off in the list turns it off in /flags; the history names who did it', { timeout: TEST_MS }, async () => {
  assert.ok(flagId, 'needs the flag from the previous test');
  const { page } = opened;
  await step(opened, 'switching the flag off failed', async () => {
    await page.getByRole('link', { name: 'Feature flags' }).first().click();
    const toggle = page.getByRole('switch', { name: 'Disable checkout-redesign' });
    await toggle.click();
    await page.getByRole('switch', { name: 'Enable checkout-redesign' }).waitFor();
    await page.getByText('"checkout-redesign" is now disabled.').waitFor();
  });
  const flags = await eventually('the flag off in /flags', () => evaluate('vip-person', { email: 'vip@example.com' }), (answer) => answer['checkout-redesign']?.enabled === false, { timeoutMs: STEP_MS, intervalMs: 150 });
  assert.equal(flags['checkout-redesign'].reason.code, 'flag_disabled');

  await step(opened, 'the history did not show the change', async () => {
    await page.goto(`/feature_flags/${flagId}?tab=history`);
    const entry = page.locator('.activity-entry').first();
    await entry.getByText('changed this').waitFor();
    await entry.getByText('Admin').waitFor();
    await entry.getByRole('button', { name: 'Show changes' }).click();
    await entry.getByText('"active"', { exact: false }).or(entry.getByText('active', { exact: true })).first().waitFor();
  });
  const activity = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/${flagId}/activity/` });
  const [latest] = activity.json().results as Array<{ activity: string; user: { email: string }; detail: { changes: Array<{ field: string; after: unknown }> } }>;
  assert.equal(latest.activity, 'updated');
  assert.equal(latest.user.email, 'admin@bellwether.local');
  assert.deepEqual(latest.detail.changes.find((change) => change.field === 'active')?.after, false);
  assert.deepEqual(latest.detail.changes.map((change) => change.field).sort(), ['active', 'version'], 'the switch changed nothing else');
});

test("the editor shows the server's error beside the field it names, and blocks what it can check itself", { timeout: TEST_MS }, async () => {
  const { page } = opened;
  const existing = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/feature_flags/`, payload: { key: 'taken-key', filters: { groups: [{ rollout_percentage: 10 }] } } });
  assert.equal(existing.statusCode, 201);
  await step(opened, 'the duplicate key was not refused beside the key', async () => {
    await page.goto('/feature_flags/new');
    await page.getByLabel('Key', { exact: true }).fill('taken-key');
    await page.getByRole('button', { name: 'Create flag' }).first().click();
    const key = page.getByLabel('Key', { exact: true });
    await page.waitForFunction(() => document.querySelector('input[aria-invalid="true"]') !== null);
    assert.equal(await key.getAttribute('aria-invalid'), 'true');
    const describedBy = (await key.getAttribute('aria-describedby')) ?? '';
    const message = await page.locator(`[id="${describedBy.split(' ')[0]}"]`).textContent();
    assert.match(message ?? '', /already/i);
  });
  await step(opened, 'variants that do not add up to 100 were not refused before saving', async () => {
    await page.getByLabel('Key', { exact: true }).fill('another-flag');
    await page.getByText('Multiple variants', { exact: true }).click();
    await page.getByLabel('Variant 1 rollout percentage').fill('70');
    await page.getByRole('button', { name: 'Create flag' }).first().click();
    await page.getByText('Variant rollout percentages must add up to 100 (now 120).').waitFor();
    assert.match(page.url(), /\/feature_flags\/new$/, 'nothing was sent');
  });
  const { rows } = await t.db.pool.query("SELECT key FROM feature_flags WHERE project_id = $1 AND key <> 'checkout-redesign' ORDER BY id", [t.projectId]);
  assert.deepEqual(rows.map((row) => row.key), ['taken-key'], 'neither refused flag was stored');
  assert.deepEqual(opened.outside, [], 'the console requested nothing from other hosts');
});

test('a write with the session cookie but without the CSRF token is refused; with it, it goes through', { timeout: TEST_MS }, async () => {
  assert.ok(flagId, 'needs the flag from the earlier test');
  const { page } = opened;
  const url = `/api/projects/${t.projectId}/feature_flags/${flagId}/`;
  const attempt = (csrf: boolean) =>
    page.evaluate(
      async ({ url, csrf }) => {
        const token = document.cookie.split('; ').find((part) => part.startsWith('bellwether_csrftoken='))?.split('=')[1] ?? '';
        const response = await fetch(url, {
          method: 'PATCH',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/json', ...(csrf ? { 'x-csrftoken': token } : {}) },
          body: JSON.stringify({ name: 'changed by a forged request' }),
        });
        return { status: response.status, body: await response.json() };
      },
      { url, csrf },
    );
  const forged = await attempt(false);
  assert.equal(forged.status, 403);
  assert.equal(forged.body.code, 'csrf_failed');
  const stored = await t.request({ method: 'GET', url });
  assert.equal(stored.json().name, 'The redesigned checkout', 'the refused write changed nothing');
  const genuine = await attempt(true);
  assert.equal(genuine.status, 200);
  assert.equal(genuine.body.name, 'changed by a forged request');
});

test('ten wrong passwords on the sign-in page are throttled; the page says when to try again', { timeout: TEST_MS }, async () => {
  const { rows } = await t.db.pool.query<{ organization_id: string }>('SELECT organization_id FROM projects WHERE id = $1', [t.projectId]);
  const { email } = await personWithPassword(t, rows[0].organization_id, 'member');
  const other = await openConsole(browser, origin);
  const { page } = other;
  try {
    await step(other, 'wrong passwords were not refused as such', async () => {
      await page.goto('/');
      await page.getByLabel('E-mail').fill(email);
      for (let attempt = 1; attempt <= 10; attempt += 1) {
        await page.getByLabel('Password').fill(`wrong password ${attempt}`);
        const answered = page.waitForResponse((response) => response.url().endsWith('/api/login/'));
        await page.getByRole('button', { name: 'Sign in' }).click();
        assert.equal((await answered).status(), 400, `attempt ${attempt}`);
        await page.getByText('Invalid email or password.').waitFor();
      }
    });
    await step(other, 'the eleventh attempt was not throttled', async () => {
      await page.getByLabel('Password').fill(GOOD_PASSWORD);
      const answered = page.waitForResponse((response) => response.url().endsWith('/api/login/'));
      await page.getByRole('button', { name: 'Sign in' }).click();
      const response = await answered;
      assert.equal(response.status(), 429, 'even the right password waits');
      assert.ok(Number(response.headers()['retry-after']) > 0);
      await page.getByText(/Too many failed attempts\. Try again in \d+ seconds\./).waitFor();
    });
    assert.equal(await page.getByRole('heading', { name: 'Sign in to Bellwether' }).count(), 1, 'still not signed in');
  } finally {
    await other.context.close();
  }
});
