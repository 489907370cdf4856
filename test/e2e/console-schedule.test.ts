// The flag page's "Schedule" tab in headless Chromium: a one-off change entered on the project's
// clock (Asia/Tokyo here) is stored as the right UTC instant, the executor (every second in this
// test) applies it and the page shows it among the past runs with the flag switched; an upcoming
// change is canceled; a recurring one is paused and resumed; a variant split that does not add up
// to 100 is refused before anything is sent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { atBothSizes, type ConsolePage, ownerConsole, step } from './support/console-browser.ts';

const TEST_MS = 120_000;
const NARROW_400 = { width: 400, height: 900 };
const ZONE = 'Asia/Tokyo';

let t: TestApp;
let browser: Browser;
let opened: ConsolePage;

async function createFlag(key: string, extra: Record<string, unknown> = {}): Promise<number> {
  const response = await t.request({
    method: 'POST',
    url: `/api/projects/${t.projectId}/feature_flags/`,
    payload: { key, filters: { groups: [{ properties: [], rollout_percentage: 100 }] }, ...extra },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().id;
}

interface StoredSchedule {
  id: number;
  scheduled_at: Date;
  executed_at: Date | null;
  is_recurring: boolean;
  cron_expression: string | null;
  payload: { operation: string; value: unknown };
}

async function schedulesOf(flagId: number): Promise<StoredSchedule[]> {
  const { rows } = await t.db.pool.query<StoredSchedule>(
    'SELECT id, scheduled_at, executed_at, is_recurring, cron_expression, payload FROM scheduled_changes WHERE record_id = $1 ORDER BY id',
    [String(flagId)],
  );
  return rows;
}

async function activeOf(flagId: number): Promise<boolean> {
  const { rows } = await t.db.pool.query<{ active: boolean }>('SELECT active FROM feature_flags WHERE id = $1', [flagId]);
  return rows[0].active;
}

/** "YYYY-MM-DDTHH:mm" on Tokyo's wall clock for `instant` (what a person there types). */
function tokyoWallClock(instant: Date): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: ZONE, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' })
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

async function openScheduleTab(page: Page, flagId: number): Promise<void> {
  await page.goto(`/feature_flags/${flagId}?tab=schedule`);
  await page.getByRole('heading', { name: 'Schedule a change' }).waitFor();
}

const changeChoice = (page: Page, label: string) => page.getByRole('group', { name: 'Change', exact: true }).getByText(label, { exact: true });

before(async () => {
  // The executor runs every second here (5 s in production) so the test sees a change applied quickly.
  t = await startTestApp({ scheduledChangesIntervalMs: 1000 });
  const zone = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/`, payload: { timezone: ZONE } });
  assert.equal(zone.statusCode, 200, zone.body);
  const origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  ({ browser, opened } = await ownerConsole(t, origin));
});

after(async () => {
  await browser?.close().catch(() => {});
  await t?.close();
});

test("a one-off change entered on the project's clock runs at its UTC instant and shows among the past runs", { timeout: TEST_MS }, async () => {
  const { page } = opened;
  const id = await createFlag('launch-banner', { active: false });
  // The current minute on Tokyo's clock: already due, so the next round applies it.
  const now = new Date();
  const typed = tokyoWallClock(now);
  await step(opened, 'scheduling "Turn on" failed', async () => {
    await openScheduleTab(page, id);
    await changeChoice(page, 'Turn on').click();
    await page.getByLabel('When').fill(typed);
    await page.getByText(`On the project's clock (${ZONE}).`).waitFor();
    await page.getByRole('button', { name: 'Schedule change' }).click();
    await page.getByText('Change scheduled.').waitFor();
  });
  const [stored] = await schedulesOf(id);
  assert.deepEqual(stored.payload, { operation: 'update_status', value: true });
  const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  assert.equal(stored.scheduled_at.toISOString(), minute.toISOString(), 'the Tokyo wall-clock time is stored as its UTC instant');
  assert.equal(stored.is_recurring, false);

  await step(opened, 'the change was not shown applied', async () => {
    const past = page.getByRole('table', { name: 'Past scheduled changes' });
    await past.getByText('Applied').waitFor();
    await past.getByText('Turn on').waitFor();
    await page.getByRole('switch', { name: 'Enabled' }).waitFor();
  });
  assert.equal(await activeOf(id), true);
  assert.ok((await schedulesOf(id))[0].executed_at !== null, 'the one-off change is finished');
  const activity = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/${id}/activity/` });
  assert.equal(activity.json().results[0].detail.trigger.job_type, 'scheduled_change');
  await step(opened, 'the history did not say the change was scheduled', async () => {
    await page.getByRole('tab', { name: 'History' }).click();
    await page.getByText('by a scheduled change').waitFor();
  });
});

test('an upcoming change is canceled: the row is gone and the flag stays as it is', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  const id = await createFlag('keep-on');
  await step(opened, 'scheduling "Turn off" for the next hour failed', async () => {
    await openScheduleTab(page, id);
    await changeChoice(page, 'Turn off').click();
    // The form starts at the next whole hour on the project's clock.
    const nextHour = new Date(Math.ceil((Date.now() + 1) / 3600_000) * 3600_000);
    const shown = await page.getByLabel('When').inputValue();
    assert.ok([tokyoWallClock(nextHour), tokyoWallClock(new Date(nextHour.getTime() + 3600_000))].includes(shown), `the form starts at the next hour, not ${shown}`);
    // Two days ahead: never due while the test runs.
    await page.getByLabel('When').fill(tokyoWallClock(new Date(Date.now() + 2 * 24 * 3600_000)));
    await page.getByRole('button', { name: 'Schedule change' }).click();
    await page.getByRole('table', { name: 'Upcoming scheduled changes' }).getByText('Turn off').waitFor();
  });
  const [stored] = await schedulesOf(id);
  assert.ok(stored.scheduled_at.getTime() > Date.now() + 24 * 3600_000, 'stored two days ahead');

  await atBothSizes(opened, 'flag-schedule', () => page.getByRole('table', { name: 'Upcoming scheduled changes' }).getByText('Turn off').waitFor(), NARROW_400);

  const dialog = page.getByRole('dialog', { name: 'Cancel this scheduled change?' });
  await step(opened, 'canceling failed', async () => {
    await page.getByRole('button', { name: 'Cancel: Turn off' }).click();
    await dialog.getByRole('button', { name: 'Cancel the change' }).click();
    await page.getByText('Scheduled change canceled.').waitFor();
    await page.getByText('Nothing is scheduled for this flag.').waitFor();
  });
  assert.equal((await schedulesOf(id)).length, 0, 'the schedule is deleted');
  assert.equal(await activeOf(id), true);
});

test('a recurring change (cron, with an end date) is paused and resumed from its row', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  const id = await createFlag('business-hours');
  const start = new Date(Date.now() + 24 * 3600_000);
  const end = new Date(Date.now() + 30 * 24 * 3600_000);
  await step(opened, 'scheduling a recurring change failed', async () => {
    await openScheduleTab(page, id);
    await changeChoice(page, 'Turn off').click();
    await page.getByLabel('First run').or(page.getByLabel('When')).fill(tokyoWallClock(start));
    await page.getByRole('group', { name: 'Repeat' }).getByText('Cron', { exact: true }).click();
    await page.getByLabel('Cron expression').fill('0 18 * * 1-5');
    await page.getByLabel('End date (optional)').fill(tokyoWallClock(end));
    await page.getByRole('button', { name: 'Schedule change' }).click();
    await page.getByRole('table', { name: 'Upcoming scheduled changes' }).getByText('Cron 0 18 * * 1-5').waitFor();
  });
  const [stored] = await schedulesOf(id);
  assert.equal(stored.is_recurring, true);
  assert.equal(stored.cron_expression, '0 18 * * 1-5');

  await step(opened, 'pausing failed', async () => {
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('Paused: it will not run until resumed.').waitFor();
    await page.getByRole('table', { name: 'Upcoming scheduled changes' }).getByText('Paused', { exact: true }).waitFor();
  });
  assert.equal((await schedulesOf(id))[0].is_recurring, false, 'paused: not recurring, the cron kept');
  assert.equal((await schedulesOf(id))[0].cron_expression, '0 18 * * 1-5');
  await step(opened, 'resuming failed', async () => {
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('Resumed: it runs at its next time.').waitFor();
  });
  assert.equal((await schedulesOf(id))[0].is_recurring, true);
});

test('a variant split that does not add up to 100 is refused on the page; adding a release condition cannot repeat', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  const id = await createFlag('checkout-copy', {
    filters: {
      groups: [{ properties: [], rollout_percentage: 100 }],
      multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] },
    },
  });
  await step(opened, 'the split was not refused', async () => {
    await openScheduleTab(page, id);
    await changeChoice(page, 'Change the variant split').click();
    await page.getByLabel('test (%)').fill('60');
    await page.getByRole('button', { name: 'Schedule change' }).click();
    await page.getByText("The variants' rollouts add up to 110%: they must add up to 100%.").waitFor();
  });
  assert.equal((await schedulesOf(id)).length, 0, 'nothing was sent');
  await step(opened, 'a correct split was not scheduled', async () => {
    await page.getByLabel('control (%)').fill('40');
    await page.getByRole('button', { name: 'Schedule change' }).click();
    await page.getByRole('table', { name: 'Upcoming scheduled changes' }).getByText('Set variants: control 40%, test 60%').waitFor();
  });
  assert.deepEqual((await schedulesOf(id))[0].payload, {
    operation: 'update_variants',
    value: { variants: [{ key: 'control', rollout_percentage: 40 }, { key: 'test', rollout_percentage: 60 }], payloads: {} },
  });
  await step(opened, 'repeat was offered for adding a release condition', async () => {
    await changeChoice(page, 'Add a release condition').click();
    assert.equal(await page.getByRole('radio', { name: 'Cron' }).isDisabled(), true);
    await page.getByText('Adding a release condition runs once: every run would add it again.').waitFor();
  });
  assert.deepEqual(opened.problems, []);
});
