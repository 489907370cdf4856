// posthog-js (the installed full bundle) in headless Chromium against the service, on another
// origin: getEarlyAccessFeatures lists the beta feature from the public endpoint, and
// updateEarlyAccessFeatureEnrollment opts the person in (then out); the event's `$set` reaches the
// stored person, and the flag follows on /flags, for a fresh browser profile too.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { eventually } from '../helpers/eventually.ts';
import { startPosthogJsSite, type PosthogJsSite } from './support/posthog-js-site.ts';

const CHROMIUM = '/usr/bin/chromium';
const STEP_MS = 20_000;
const POLL = { timeoutMs: STEP_MS, intervalMs: 200 };
type Json = Record<string, any>;

let t: TestApp;
let apiOrigin: string;
let site: PosthogJsSite;
let browser: Browser | undefined;
let token: string;

before(async () => {
  t = await startTestApp();
  apiOrigin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  site = await startPosthogJsSite();
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  token = rows[0].api_token;
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing`);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'], timeout: STEP_MS });
});
after(async () => {
  await browser?.close().catch(() => {});
  await site?.close();
  await t?.close();
});

async function openPage(distinctId: string): Promise<Page> {
  assert.ok(browser);
  const context = await browser.newContext();
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    return url.origin === site.origin || url.origin === apiOrigin ? route.continue() : route.abort();
  });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_MS);
  const options = {
    api_host: apiOrigin,
    bootstrap: { distinctID: distinctId, isIdentifiedID: true },
    autocapture: false,
    capture_pageview: false,
    capture_pageleave: false,
    disable_session_recording: true,
    request_batching: false,
    opt_out_useragent_filter: true,
  };
  await page.goto(site.pageUrl({ token, options }));
  await page.waitForFunction(() => (window as unknown as { __posthogLoaded?: boolean }).__posthogLoaded === true);
  return page;
}

type PosthogWindow = { posthog: { getEarlyAccessFeatures(cb: (f: Json[]) => void, force?: boolean, stages?: string[]): void; updateEarlyAccessFeatureEnrollment(key: string, on: boolean): void; reloadFeatureFlags(): void; onFeatureFlags(cb: () => void): void; isFeatureEnabled(key: string): boolean | undefined } };

async function storedEnrollment(distinctId: string, key: string): Promise<unknown> {
  const { rows } = await t.db.pool.query<{ v: unknown }>(
    `SELECT p.properties -> $3 AS v FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE d.project_id = $1 AND d.distinct_id = $2`,
    [t.projectId, distinctId, `$feature_enrollment/${key}`],
  );
  return rows[0]?.v ?? null;
}

/** What a fresh profile's posthog-js says about `key` once its flags loaded. */
async function freshProfileSays(distinctId: string, key: string): Promise<boolean | undefined> {
  const page = await openPage(distinctId);
  try {
    return await page.evaluate(
      (flagKey) => new Promise<boolean | undefined>((resolve) => (window as unknown as PosthogWindow).posthog.onFeatureFlags(() => resolve((window as unknown as PosthogWindow).posthog.isFeatureEnabled(flagKey)))),
      key,
    );
  } finally {
    await page.context().close();
  }
}

test('posthog-js lists the beta feature, enrols and opts out; the flag follows', { timeout: 120_000 }, async () => {
  const created = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/early_access_feature/`, payload: { name: 'Sprocket preview', stage: 'beta', description: 'A fancy new sprocket.' } });
  assert.equal(created.statusCode, 201, created.body);
  const flagKey: string = created.json().feature_flag.key;
  const person = 'eaf-browser-person';

  const page = await openPage(person);
  const features = await page.evaluate(
    () => new Promise<Json[]>((resolve) => (window as unknown as PosthogWindow).posthog.getEarlyAccessFeatures((list) => resolve(list), true)),
  );
  const listed = features.find((feature) => feature.flagKey === flagKey);
  assert.ok(listed, JSON.stringify(features));
  assert.equal(listed.name, 'Sprocket preview');
  assert.equal(await freshProfileSays(person, flagKey), false, 'not enrolled: rollout 0 %');

  await page.evaluate((key) => (window as unknown as PosthogWindow).posthog.updateEarlyAccessFeatureEnrollment(key, true), flagKey);
  assert.equal(await page.evaluate((key) => (window as unknown as PosthogWindow).posthog.isFeatureEnabled(key), flagKey), true, 'the page flips at once');
  await eventually('the opt-in stored on the person', () => storedEnrollment(person, flagKey), (value) => value === true, POLL);
  assert.equal(await freshProfileSays(person, flagKey), true, 'a fresh profile gets the flag from /flags');

  await page.evaluate((key) => (window as unknown as PosthogWindow).posthog.updateEarlyAccessFeatureEnrollment(key, false), flagKey);
  await eventually('the opt-out stored on the person', () => storedEnrollment(person, flagKey), (value) => value === false, POLL);
  assert.equal(await freshProfileSays(person, flagKey), false, 'opted out: the flag is off');
  await page.context().close();
});
