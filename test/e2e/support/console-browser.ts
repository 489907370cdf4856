/**
 * Headless Chromium (Debian's) on the console: a browser, pages that record what went wrong (console
 * errors, failed requests, requests to other hosts, which are aborted), and screenshots at a narrow
 * and a wide window into docs/screenshots when CONSOLE_SCREENSHOTS=1.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestApp } from '../../helpers/app.ts';
import { givePassword, GOOD_PASSWORD, OWNER_EMAIL } from '../../helpers/session.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
/** Bounds every single wait in the browser; a step that needs longer is broken. */
export const STEP_MS = 20_000;

const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/screenshots');
export const NARROW = { width: 390, height: 844 };
export const WIDE = { width: 1366, height: 900 };

export async function launchChromium(): Promise<Browser> {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium package (.ci/run does)`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: STEP_MS });
}

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and failed requests, shown when a step fails. */
  problems: string[];
  /** Requests to any origin but the service's (aborted: the console needs nothing from outside). */
  outside: string[];
}

/** `others`: origins the page may also reach (a single sign-on provider's pages). */
export async function openConsole(browser: Browser, origin: string, viewport = WIDE, others: string[] = []): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport, baseURL: origin });
  const problems: string[] = [];
  const outside: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin === origin || others.includes(url.origin)) return route.continue();
    outside.push(url.href);
    return route.abort();
  });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_MS);
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console.error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText ?? '';
    // A navigation cancels what the previous page was still loading (its icon, a query): not a fault.
    if (reason === 'net::ERR_ABORTED') return;
    problems.push(`request failed: ${request.method()} ${request.url()} ${reason}`);
  });
  return { context, page, problems, outside };
}

/** Runs `run`; on failure the error carries what the page reported. */
export async function step<T>(opened: ConsolePage, what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new Error([`${what}: ${(error as Error).message}`, `--- page at ${opened.page.url()} reported ---`, ...opened.problems.slice(-40)].join('\n'), { cause: error });
  }
}

export const screenshotsWanted = () => process.env.CONSOLE_SCREENSHOTS === '1';

/** docs/screenshots/<name>.png of the whole page as it is now, when CONSOLE_SCREENSHOTS=1. */
export async function screenshot(opened: ConsolePage, name: string): Promise<void> {
  if (!screenshotsWanted()) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Let charts and layouts settle after a resize.
  await opened.page.waitForTimeout(250);
  await opened.page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * The page as it is now at a wide, then a narrow window (`narrow`, NARROW unless given): `ready`
 * waits for what must be on screen, nothing may make the page scroll sideways, and each size is
 * photographed as <name>-wide/-narrow.
 */
export async function atBothSizes(opened: ConsolePage, name: string, ready: (page: Page) => Promise<unknown>, narrow = NARROW): Promise<void> {
  const { page } = opened;
  for (const [suffix, viewport] of [
    ['wide', WIDE],
    ['narrow', narrow],
  ] as const) {
    await step(opened, `${name} at ${viewport.width}px`, async () => {
      await page.setViewportSize(viewport);
      // Resize observers (a chart redrawing at its new width) are told during the next rendering
      // step: let two frames pass so the page is measured as it settles, not mid-resize.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      await ready(page);
      const overflow = await page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        // No named helpers in here: the test's compiler would wrap them in a function the page lacks.
        const wide = [...document.querySelectorAll('body *')]
          .filter((element) => {
            if (element.getBoundingClientRect().right <= width + 1) return false;
            for (let parent = element.parentElement; parent; parent = parent.parentElement) {
              if (getComputedStyle(parent).overflowX !== 'visible') return false;
            }
            return true;
          })
          .slice(0, 5)
          .map((element) => `${element.tagName.toLowerCase()}.${element.className}`);
        return { by: document.documentElement.scrollWidth - width, wide };
      });
      assert.ok(overflow.by <= 1, `the page scrolls sideways by ${overflow.by}px (${overflow.wide.join(', ')})`);
      await screenshot(opened, `${name}-${suffix}`);
    });
  }
  await page.setViewportSize(WIDE);
}

/**
 * Signs in on the console's own sign-in page, as a person would; waits for the flag list (or the
 * heading given as `landing`). The sign-in page is at the address asked for, and the flag list's
 * address is asked for: `/` opens a new environment's checklist.
 */
export async function signInOnPage(opened: ConsolePage, email: string, password: string, landing = 'Feature flags'): Promise<void> {
  const { page } = opened;
  await step(opened, `signing in as ${email} failed`, async () => {
    await page.goto('/feature_flags');
    await page.getByRole('heading', { name: 'Sign in to Bellwether' }).waitFor();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: landing, exact: true }).waitFor();
  });
  // Before signing in, the console's question "who is signed in?" was answered 401, as it should be.
  opened.problems.length = 0;
}

/** Chromium with the console open at `origin`, signed in as the test app's owner (given a password first). */
export async function ownerConsole(t: TestApp, origin: string): Promise<{ browser: Browser; opened: ConsolePage }> {
  const browser = await launchChromium();
  const opened = await openConsole(browser, origin);
  await givePassword(t);
  await signInOnPage(opened, OWNER_EMAIL, GOOD_PASSWORD);
  return { browser, opened };
}
