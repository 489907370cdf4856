// The experiment pages in headless Chromium against the real service: an experiment is built in
// the create form (new flag, 50/50, a funnel metric on an event with a property filter, the
// calculator), launched with a confirmation naming the flag, fed exposures and conversions through
// /batch/, and its results page shows the exposures, the better variant as a significant win with
// the numbers the statistics module computes, and the history; a second experiment shows the
// sample-ratio warning and "not enough data"; pause, end and ship change the flag as the dialogs say.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { analyzeMetric, type BayesianVariantResult } from '../../src/experiments/stats/index.ts';
import { formatProbability } from '../../web/src/experiments/metric-text.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { GOOD_PASSWORD, givePassword, OWNER_EMAIL } from '../helpers/session.ts';
import { atBothSizes, launchChromium, openConsole, signInOnPage, step, type ConsolePage } from './support/console-browser.ts';

const TEST_MS = 180_000;

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

type Event = { event: string; distinct_id: string; timestamp: string; properties: Record<string, unknown> };

async function send(events: Event[]): Promise<void> {
  for (let i = 0; i < events.length; i += 500) {
    const response = await fetch(`${origin}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: token, batch: events.slice(i, i + 500) }),
    });
    assert.equal(response.status, 200, await response.text());
  }
}

/**
 * `count` persons exposed to `variant` now (after the launch), of whom `converted` then purchase in
 * USD and a few others purchase in EUR (which the metric's filter leaves out).
 */
function people(flag: string, prefix: string, variant: string, count: number, converted: number): Event[] {
  const now = Date.now();
  const events: Event[] = [];
  for (let i = 0; i < count; i++) {
    const id = `${prefix}-${variant}-${i}`;
    events.push({ event: '$feature_flag_called', distinct_id: id, timestamp: new Date(now + i).toISOString(), properties: { $feature_flag: flag, $feature_flag_response: variant } });
    if (i < converted) events.push({ event: 'purchase', distinct_id: id, timestamp: new Date(now + 1_000 + i).toISOString(), properties: { currency: 'usd' } });
    else if (i % 7 === 0) events.push({ event: 'purchase', distinct_id: id, timestamp: new Date(now + 1_000 + i).toISOString(), properties: { currency: 'eur' } });
  }
  return events;
}

/** Closes the notes in the corner, so the pictures show the page. */
async function dismissToasts(): Promise<void> {
  const buttons = opened.page.getByRole('button', { name: 'Dismiss' });
  while ((await buttons.count()) > 0) await buttons.first().click();
}

async function api(method: string, url: string, payload?: unknown) {
  const response = await t.request({ method: method as 'GET', url: `/api/projects/${t.projectId}/${url}`, payload: payload as Record<string, unknown> });
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}

let experimentId = 0;
let flagKey = '';

test('an experiment is built in the create form: new flag, split, a funnel metric with a property filter, the calculator', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  await signInOnPage(opened, OWNER_EMAIL, GOOD_PASSWORD);
  // the event the metric names is known to the project, so the form offers it
  await send([{ event: 'purchase', distinct_id: 'seed', timestamp: new Date().toISOString(), properties: { currency: 'usd' } }]);
  await step(opened, 'the empty list did not show', async () => {
    await page.getByRole('link', { name: 'Experiments' }).click();
    await page.getByRole('heading', { name: 'No experiments yet' }).waitFor();
  });
  await step(opened, 'the create form did not fill in', async () => {
    await page.getByRole('link', { name: 'New experiment' }).click();
    await page.getByRole('heading', { name: 'New experiment' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Green checkout button');
    assert.equal(await page.getByLabel('Flag key').getAttribute('placeholder'), 'green-checkout-button');
    await page.getByLabel('Step 1').fill('purchase');
    await page.getByRole('button', { name: 'Add a property filter' }).click();
    await page.getByLabel('Property', { exact: true }).fill('currency');
    await page.getByLabel('Value', { exact: true }).fill('usd');
    // a split that does not add up is named, and blocks nothing until sent
    await page.getByLabel('test share (%)').fill('40');
    await page.getByText('The shares add up to 90 %, not 100 %.').waitFor();
    await page.getByRole('button', { name: 'Save as draft' }).click();
    await page.getByText('The variant shares must add up to 100 %.').waitFor();
    await page.getByRole('button', { name: 'Split evenly' }).click();
    await page.getByText('Adds up to 100 %.').waitFor();
    await page.getByText('The variant shares must add up to 100 %.').waitFor({ state: 'hidden' });
    // the calculator: 10 % conversion, +10 % → 14,749 per variant; 1,000 a day → 30 days
    await page.getByLabel('Users exposed per day (optional)').fill('1000');
    await page.getByRole('status').filter({ hasText: 'users per variant' }).getByText('14,749').waitFor();
    await page.getByRole('status').filter({ hasText: 'users per variant' }).getByText('30', { exact: true }).waitFor();
  });
  await atBothSizes(opened, 'experiment-new', (p) => p.getByRole('heading', { name: 'New experiment' }).waitFor());
  await step(opened, 'saving the draft failed', async () => {
    await page.getByRole('button', { name: 'Save as draft' }).click();
    await page.getByRole('heading', { name: 'Green checkout button' }).waitFor();
    await page.getByText('Draft', { exact: true }).first().waitFor();
  });
  experimentId = Number(page.url().split('/experiments/')[1].split(/[?#]/)[0]);
  const stored = await api('GET', `experiments/${experimentId}/`);
  flagKey = stored.feature_flag_key;
  assert.equal(flagKey, 'green-checkout-button');
  assert.equal(stored.metrics.length, 1);
  assert.equal(stored.metrics[0].metric_type, 'funnel');
  assert.deepEqual(stored.metrics[0].series[0].properties, [{ key: 'currency', operator: 'exact', value: 'usd', type: 'event' }]);
  const flag = await api('GET', `feature_flags/${stored.feature_flag.id}/`);
  assert.equal(flag.active, false, 'a draft’s flag is off');
  assert.deepEqual(flag.filters.multivariate.variants.map((v: { key: string; rollout_percentage: number }) => [v.key, v.rollout_percentage]), [['control', 50], ['test', 50]]);
});

test('launching says the flag is switched on; the results show the better variant as a significant win with the computed numbers', { timeout: TEST_MS }, async (ctx) => {
  if (!experimentId) return ctx.skip('needs the experiment from the first test');
  const { page } = opened;
  await step(opened, 'launching failed', async () => {
    await page.getByRole('button', { name: 'Launch' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(`The flag ${flagKey} is switched on and starts splitting people: control 50%, test 50%.`).waitFor();
    await dialog.getByRole('button', { name: 'Launch' }).click();
    await page.getByText('Running', { exact: true }).first().waitFor();
  });
  const flag = await api('GET', `experiments/${experimentId}/`);
  assert.equal(flag.feature_flag.active, true, 'launch switched the flag on');

  await send([...people(flagKey, 'a', 'control', 400, 40), ...people(flagKey, 'a', 'test', 400, 80)]);
  const expected = analyzeMetric(
    'funnel',
    { key: 'control', number_of_samples: 400, sum: 40, sum_squares: 40 },
    [{ key: 'test', number_of_samples: 400, sum: 80, sum_squares: 80 }],
    {},
  ).variant_results[0] as BayesianVariantResult;

  await step(opened, 'the results did not show the win', async () => {
    await page.getByRole('button', { name: 'Refresh results' }).click();
    await page.getByText('800', { exact: true }).waitFor();
    const row = page.getByRole('row', { name: /^test/ });
    await row.getByText('Significant win').waitFor();
    await row.getByText(formatProbability(expected.chance_to_win!)).waitFor();
    await row.getByText('+100%').waitFor();
    await row.getByText('20.00%').waitFor();
    await page.getByRole('row', { name: /^control/ }).getByText('10.00%').waitFor();
  });
  await dismissToasts();
  await atBothSizes(opened, 'experiment-results', (p) => p.getByText('Significant win').waitFor());
});

test('a lopsided split shows the sample-ratio warning, and a variant under 50 exposures "not enough data"', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  const created = await api('POST', 'experiments/', {
    name: 'Lopsided',
    feature_flag_key: 'lopsided-flag',
    metrics: [{ kind: 'ExperimentMetric', metric_type: 'funnel', series: [{ kind: 'EventsNode', event: 'purchase' }] }],
  });
  await api('POST', `experiments/${created.id}/launch/`, {});
  await send([...people('lopsided-flag', 'b', 'control', 150, 20), ...people('lopsided-flag', 'b', 'test', 30, 6)]);
  await step(opened, 'the warning or "not enough data" did not show', async () => {
    await page.goto(`/experiments/${created.id}`);
    await page.getByRole('button', { name: 'Refresh results' }).click();
    await page.getByText('Users are not split across variants as configured').waitFor();
    await page.getByRole('row', { name: /^test/ }).getByText('Not enough data: Not enough exposures (at least 50 per variant)').waitFor();
  });
  await atBothSizes(opened, 'experiment-not-enough-data', (p) => p.getByText('Users are not split across variants as configured').waitFor());
});

test('an experiment on an existing flag: only multivariate flags with control first are offered, and the flag is used as it is', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  const variants = [
    { key: 'control', rollout_percentage: 34 },
    { key: 'blue', rollout_percentage: 33 },
    { key: 'red', rollout_percentage: 33 },
  ];
  const flag = await api('POST', 'feature_flags/', {
    key: 'hero-colour',
    filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants } },
  });
  await api('POST', 'feature_flags/', { key: 'plain-boolean', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await step(opened, 'the existing flag could not be chosen', async () => {
    await page.goto('/experiments/new');
    await page.getByLabel('Name', { exact: true }).fill('Hero colour');
    await page.getByText('Use an existing flag').click();
    const choices = await page.getByLabel('Flag', { exact: true }).locator('option').allTextContents();
    assert.ok(choices.includes('hero-colour'), choices.join());
    assert.ok(!choices.includes('plain-boolean'), 'a boolean flag is not offered');
    await page.getByLabel('Flag', { exact: true }).selectOption('hero-colour');
    await page.getByText('control 34% · blue 33% · red 33%').waitFor();
    await page.getByLabel('Kind').selectOption('mean');
    await page.getByLabel('Event', { exact: true }).fill('purchase');
    await page.getByRole('button', { name: 'Save as draft' }).click();
    await page.getByRole('heading', { name: 'Hero colour' }).waitFor();
  });
  const id = Number(page.url().split('/experiments/')[1].split(/[?#]/)[0]);
  const stored = await api('GET', `experiments/${id}/`);
  assert.equal(stored.feature_flag.id, flag.id);
  assert.equal(stored.metrics[0].metric_type, 'mean');
  const after = await api('GET', `feature_flags/${flag.id}/`);
  assert.deepEqual(after.filters.multivariate.variants.map((v: { key: string; rollout_percentage: number }) => [v.key, v.rollout_percentage]), [['control', 34], ['blue', 33], ['red', 33]]);
});

test('pause, resume, end and ship: each confirmed with what happens to the flag, which changes so', { timeout: TEST_MS }, async (ctx) => {
  if (!experimentId) return ctx.skip('needs the experiment from the first test');
  const { page } = opened;
  const flagOf = async () => (await api('GET', `experiments/${experimentId}/`)).feature_flag;
  await page.goto(`/experiments/${experimentId}`);
  await step(opened, 'pausing failed', async () => {
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('dialog').getByText('is switched off: everyone gets its off value until you resume').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Pause' }).click();
    await page.getByText('Paused', { exact: true }).first().waitFor();
  });
  assert.equal((await flagOf()).active, false);
  await step(opened, 'resuming failed', async () => {
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Resume' }).click();
    await page.getByText('Running', { exact: true }).first().waitFor();
  });
  assert.equal((await flagOf()).active, true);
  await step(opened, 'ending failed', async () => {
    await page.getByRole('button', { name: 'End' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('is not changed: people keep getting their variants').waitFor();
    await dialog.getByLabel('Conclusion').selectOption('won');
    await dialog.getByRole('button', { name: 'End' }).click();
    await page.getByText('Complete', { exact: true }).first().waitFor();
    await page.getByText('Concluded:').waitFor();
  });
  await step(opened, 'shipping failed', async () => {
    await page.getByRole('button', { name: 'Ship a variant' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Variant to ship').selectOption('test');
    await dialog.getByText('serves test to 100 % of the people its conditions match').waitFor();
    await dialog.getByRole('button', { name: 'Ship a variant' }).click();
    await page.getByText('test is shipped').waitFor();
  });
  const shipped = await flagOf();
  const variants = shipped.filters.multivariate.variants.map((v: { key: string; rollout_percentage: number }) => [v.key, v.rollout_percentage]);
  assert.deepEqual(variants, [['control', 0], ['test', 100]]);
  await step(opened, 'the history did not list the changes', async () => {
    await page.getByRole('tab', { name: 'History' }).click();
    await page.getByRole('tabpanel').getByText(/created/i).first().waitFor();
  });
  await dismissToasts();
  await atBothSizes(opened, 'experiment-history', (p) => p.getByRole('tabpanel').waitFor());
});

test('the list shows each experiment’s status, variants and its primary metric’s state', { timeout: TEST_MS }, async (ctx) => {
  if (!experimentId) return ctx.skip('needs the experiment from the first test');
  const { page } = opened;
  await step(opened, 'the list did not show the experiments', async () => {
    await page.goto('/experiments');
    const shipped = page.getByRole('row', { name: /Green checkout button/ });
    await shipped.getByText('Complete').waitFor();
    await shipped.getByText(/test: .* chance to win · significant/).waitFor();
    const lopsided = page.getByRole('row', { name: /Lopsided/ });
    await lopsided.getByText('Running').waitFor();
    await lopsided.getByText('Not enough data').waitFor();
  });
  await atBothSizes(opened, 'experiment-list', (p) => p.getByRole('row', { name: /Lopsided/ }).waitFor());
  assert.deepEqual(opened.problems, [], 'no console errors, page errors or failed requests');
  assert.deepEqual(opened.outside, [], 'the console asked nothing of other hosts');
});
