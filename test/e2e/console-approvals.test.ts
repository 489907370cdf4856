// Approvals in headless Chromium, driven by three people in their own browsers: the owner makes a
// policy in Settings → Approvals (a member sees it read-only, with the reason); member Ann changes
// a gated flag's rollout on its edit page and is told it was sent for review (the flag unchanged,
// a banner on its page); she cannot approve her own request (disabled, with the reason); member
// Ben approves it on the review page and the flag changes; Ben rejects her next change with a
// reason that Ann then reads; Ann cancels a third; the activity entry links to the flag.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { currentOrganizationId } from '../accounts/support.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { GOOD_PASSWORD, givePassword, OWNER_EMAIL, personWithPassword } from '../helpers/session.ts';
import { atBothSizes, launchChromium, openConsole, signInOnPage, step, type ConsolePage } from './support/console-browser.ts';

const TEST_MS = 180_000;
const NARROW_400 = { width: 400, height: 900 };
const ANN = 'ann.member@example.com';
const BEN = 'ben.member@example.com';
const ADMINS_ONLY = 'Only admins and owners of the organization can do this.';
const OWN_REQUEST = 'You cannot approve your own change request: another member must review it.';
const SENT = 'Sent for review: A change request has been created and is pending approval.';
const TITLE = 'Change the rollout of feature flag "pricing-rollout"';

let t: TestApp;
let origin: string;
let browser: Browser;
let flagId: number;
let ann: ConsolePage;
let ben: ConsolePage;

async function signedIn(email: string): Promise<ConsolePage> {
  const opened = await openConsole(browser, origin);
  await signInOnPage(opened, email, GOOD_PASSWORD);
  return opened;
}

async function flagRow(): Promise<{ rollout: number; version: number }> {
  const { rows } = await t.db.pool.query<{ filters: { groups: Array<{ rollout_percentage: number }> }; version: number }>(
    'SELECT filters, version FROM feature_flags WHERE id = $1',
    [flagId],
  );
  return { rollout: rows[0].filters.groups[0].rollout_percentage, version: rows[0].version };
}

async function requestStates(): Promise<string[]> {
  const { rows } = await t.db.pool.query<{ state: string }>('SELECT state FROM change_requests ORDER BY created_at');
  return rows.map((row) => row.state);
}

/** The reason a control is disabled with (its aria-describedby text), or null when it is enabled. */
async function reasonOf(page: Page, control: Locator): Promise<string | null> {
  await control.waitFor();
  if ((await control.getAttribute('aria-disabled')) !== 'true') return null;
  const ids = ((await control.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
  const texts = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()));
  return texts.join(' ').trim();
}

/** Ann sets the flag's rollout on its edit page and saves; the gate holds it for review. */
async function annAsksFor(rollout: number): Promise<void> {
  const { page } = ann;
  await step(ann, `asking for a ${rollout}% rollout was not sent for review`, async () => {
    await page.bringToFront();
    await page.goto(`/feature_flags/${flagId}/edit`);
    await page.getByLabel('Roll out to').fill(String(rollout));
    await page.getByRole('button', { name: 'Save' }).first().click();
    await page.getByText(SENT).waitFor();
    await page.waitForURL(new RegExp(`/feature_flags/${flagId}$`));
    await page.getByText('Awaiting review:').waitFor();
  });
}

const card = (page: Page) => page.getByRole('article', { name: TITLE });

before(async () => {
  t = await startTestApp();
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await givePassword(t);
  const organizationId = await currentOrganizationId(t);
  for (const [email, name] of [[ANN, 'Ann'], [BEN, 'Ben']] as const) {
    const { userId } = await personWithPassword(t, organizationId, 'member', email);
    await t.db.pool.query('UPDATE users SET current_project_id = $1, first_name = $2 WHERE id = $3', [t.projectId, name, userId]);
  }
  const created = await t.request({
    method: 'POST',
    url: `/api/projects/${t.projectId}/feature_flags/`,
    payload: { key: 'pricing-rollout', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
  });
  assert.equal(created.statusCode, 201, created.body);
  flagId = created.json().id;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close().catch(() => {});
  await t?.close();
});

test('the owner creates a policy in Settings → Approvals; a member reads it with the reason they cannot change it', { timeout: TEST_MS }, async () => {
  const owner = await signedIn(OWNER_EMAIL);
  const { page } = owner;
  const dialog = page.getByRole('dialog', { name: 'New approval policy' });
  await step(owner, 'creating the policy failed', async () => {
    await page.goto('/settings/approvals');
    await page.getByText('No policy: every flag change applies at once.').waitFor();
    await page.getByRole('button', { name: 'New policy' }).click();
    await dialog.getByLabel('Which changes').selectOption('feature_flag.update');
    await dialog.getByLabel('Approvals needed').fill('1');
    await dialog.getByRole('button', { name: 'Create policy' }).click();
    await page.getByText('Policy created.').waitFor();
    await page.getByRole('table', { name: 'Approval policies' }).getByText('1 approval from any member').waitFor();
  });
  const policies = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/approval_policies/` });
  const [policy] = policies.json().results;
  assert.equal(policy.action_key, 'feature_flag.update');
  assert.deepEqual(policy.approver_config, { users: [], roles: [], quorum: 1 });
  assert.equal(policy.expires_after, '14 00:00:00');
  await atBothSizes(owner, 'settings-approvals', () => page.getByText('1 approval from any member').waitFor(), NARROW_400);
  await owner.context.close();

  ann = await signedIn(ANN);
  ben = await signedIn(BEN);
  await step(ann, "the member's policy page was not read-only", async () => {
    await ann.page.goto('/settings/approvals');
    await ann.page.getByText('1 approval from any member').waitFor();
  });
  assert.equal(await reasonOf(ann.page, ann.page.getByRole('button', { name: 'New policy' })), ADMINS_ONLY);
  await atBothSizes(ann, 'settings-approvals-member', () => ann.page.getByText('You can read these policies; only admins and owners of the organization can change them.').waitFor(), NARROW_400);
  assert.equal(await reasonOf(ann.page, ann.page.getByRole('button', { name: "Edit the policy: Change a flag's rollout" })), ADMINS_ONLY);
  assert.equal(await reasonOf(ann.page, ann.page.getByRole('button', { name: "Delete the policy: Change a flag's rollout" })), ADMINS_ONLY);
});

test('Ann\'s rollout change is sent for review, not applied; she cannot approve it herself; Ben approves and the flag changes', { timeout: TEST_MS }, async () => {
  assert.ok(ann && ben, 'needs the members signed in by the first test');
  const before = await flagRow();
  await annAsksFor(30);
  assert.deepEqual(await flagRow(), before, 'nothing changes before the review');
  assert.deepEqual(await requestStates(), ['pending']);
  await atBothSizes(ann, 'flag-pending-review', () => ann.page.getByText('Awaiting review:').waitFor(), NARROW_400);

  await step(ann, 'Ann did not see her request', async () => {
    await ann.page.getByRole('link', { name: 'Review the change' }).click();
    await card(ann.page).waitFor();
  });
  assert.equal(await reasonOf(ann.page, card(ann.page).getByRole('button', { name: 'Approve' })), OWN_REQUEST);
  assert.equal(await reasonOf(ann.page, card(ann.page).getByRole('button', { name: 'Reject' })), OWN_REQUEST);

  const { page } = ben;
  await step(ben, 'Ben did not see the request with who asked and the diff', async () => {
    await page.bringToFront();
    await page.getByRole('link', { name: 'Changes awaiting review' }).click();
    await card(page).getByText('asked by').waitFor();
    await card(page).getByText('Ann', { exact: true }).waitFor();
    await card(page).getByLabel('Changes to filters').getByText('"rollout_percentage": 30').waitFor();
  });
  assert.equal(await reasonOf(page, card(page).getByRole('button', { name: 'Approve' })), null, 'Ben may approve');
  await atBothSizes(ben, 'changes-awaiting-review', () => card(page).getByRole('button', { name: 'Approve' }).waitFor(), NARROW_400);
  await step(ben, 'approving did not apply the change', async () => {
    await card(page).getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Quorum reached. Change applied successfully.').waitFor();
    await page.getByText('Nothing awaits review').waitFor();
    await page.getByRole('table', { name: 'Past decisions' }).getByText('Applied').waitFor();
  });
  assert.deepEqual(await flagRow(), { rollout: 30, version: before.version + 1 });
  assert.deepEqual(await requestStates(), ['applied']);
});

test("Ben rejects Ann's next change with a reason, which Ann reads; the flag keeps its rollout", { timeout: TEST_MS }, async () => {
  assert.ok(ann && ben, 'needs the members signed in by the first test');
  const before = await flagRow();
  await annAsksFor(60);
  const { page } = ben;
  const dialog = page.getByRole('dialog', { name: 'Reject this change?' });
  await step(ben, 'rejecting failed', async () => {
    await page.bringToFront();
    await page.goto('/approvals');
    await card(page).getByRole('button', { name: 'Reject' }).click();
    assert.equal(await dialog.getByRole('button', { name: 'Reject' }).isDisabled(), true, 'a reason is required');
    await dialog.getByLabel('Reason').fill('Too fast for a Friday');
    await dialog.getByRole('button', { name: 'Reject' }).click();
    await page.getByText('Change request rejected.').waitFor();
  });
  assert.deepEqual(await flagRow(), before);
  assert.deepEqual(await requestStates(), ['applied', 'rejected']);
  await step(ann, 'Ann did not read the reason', async () => {
    await ann.page.bringToFront();
    await ann.page.goto('/approvals');
    const past = ann.page.getByRole('table', { name: 'Past decisions' });
    await past.getByText('“Too fast for a Friday”').waitFor();
    await past.getByRole('row').filter({ hasText: 'Too fast for a Friday' }).getByText('by Ben').waitFor();
  });
  await atBothSizes(ann, 'review-past-decisions', () => ann.page.getByText('“Too fast for a Friday”').waitFor(), NARROW_400);
});

test('Ann cancels her own request; the activity entry of the approved change links to the flag', { timeout: TEST_MS }, async () => {
  assert.ok(ann && ben, 'needs the members signed in by the first test');
  await annAsksFor(45);
  const { page } = ann;
  const dialog = page.getByRole('dialog', { name: 'Cancel your change request?' });
  await step(ann, 'canceling failed', async () => {
    await page.goto('/approvals');
    await card(page).getByRole('button', { name: 'Cancel request' }).click();
    await dialog.getByRole('button', { name: 'Cancel the request' }).click();
    await page.getByText('Change request canceled.').waitFor();
    await page.getByText('Nothing awaits review').waitFor();
  });
  assert.deepEqual(await requestStates(), ['applied', 'rejected', 'rejected']);
  assert.equal((await flagRow()).rollout, 30);
  await step(ann, 'the activity entry did not lead to the flag', async () => {
    await page.goto('/activity');
    await page.getByRole('link', { name: 'pricing-rollout' }).first().click();
    await page.waitForURL(new RegExp(`/feature_flags/${flagId}$`));
    await page.getByRole('heading', { name: 'pricing-rollout' }).waitFor();
  });
  // The gate's 409s are the browser's only complaints (it logs every answer that is not 2xx).
  const unexpected = (opened: ConsolePage) => opened.problems.filter((problem) => !problem.includes('status of 409'));
  assert.deepEqual(unexpected(ann), []);
  assert.deepEqual(unexpected(ben), []);
});

test("the flag page's switch held by a policy says the change was sent for review, and the flag stays on", { timeout: TEST_MS }, async () => {
  assert.ok(ann && ben, 'needs the members signed in by the first test');
  const policy = await t.request({
    method: 'POST',
    url: `/api/projects/${t.projectId}/approval_policies/`,
    payload: { action_key: 'feature_flag.disable', approver_config: { users: [], roles: [], quorum: 1 } },
  });
  assert.equal(policy.statusCode, 201, policy.body);
  const { page } = ben;
  await step(ben, 'turning the flag off was not sent for review', async () => {
    await page.bringToFront();
    await page.goto(`/feature_flags/${flagId}`);
    await page.getByRole('switch', { name: 'Enabled' }).click();
    await page.getByText('Sent for review: A change request has been created and is pending approval.').waitFor();
    await page.getByText('Disable feature flag "pricing-rollout", asked by Ben').waitFor();
    await page.getByRole('switch', { name: 'Enabled' }).waitFor();
  });
  const { rows } = await t.db.pool.query<{ active: boolean }>('SELECT active FROM feature_flags WHERE id = $1', [flagId]);
  assert.equal(rows[0].active, true, 'held, not applied');
  assert.deepEqual((await requestStates()).at(-1), 'pending');
});
