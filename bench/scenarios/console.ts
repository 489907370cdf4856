/**
 * The console's weight and speed: the JavaScript a first visit downloads (gzipped, as served from
 * the pre-compressed files), and how long the flag list takes to become usable in headless Chromium
 * with 1,000 flags in the project, cold (empty browser cache) and warm. Aims: ≤ 250 KB of
 * JavaScript; interactive < 1 s.
 *
 * "Interactive" is what a person sees and does: from navigation start until the first row's
 * enable switch, clicked with the mouse as soon as it is on screen and enabled beside the flag's
 * link, has visibly changed state. The timeline of each visit (scripts loaded, `users/@me` and the
 * list's request answered, rows on screen) is kept to show where the time goes.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium, type Page } from 'playwright-core';
import type { BenchConfig } from '../lib/config.ts';
import { table } from '../lib/report.ts';
import { startBellwether } from '../targets/bellwether.ts';
import { replaceFlagsWithSql } from './flags-sql.ts';
import type { Log, Scenario } from './scenario.ts';
import { seedFlags } from './sdk-flags.ts';
import { median } from '../lib/median.ts';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/dist');
const FLAGS = 1_000;
const RUNS = 7;
const JS_BUDGET_BYTES = 250 * 1024;
const INTERACTIVE_BUDGET_MS = 1_000;
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

interface Asset {
  file: string;
  bytes: number;
  gzipBytes: number;
}

/** What index.html makes the browser fetch at once: its module script, preloads and styles. */
function firstLoadAssets(): { js: Asset[]; css: Asset[] } {
  const index = readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const referenced = [...index.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((match) => match[1]);
  const describe = (file: string): Asset => {
    const full = path.join(DIST, file);
    const gz = `${full}.gz`;
    return { file, bytes: statSync(full).size, gzipBytes: existsSync(gz) ? statSync(gz).size : gzipSync(readFileSync(full)).length };
  };
  return {
    js: referenced.filter((file) => file.endsWith('.js')).map(describe),
    css: referenced.filter((file) => file.endsWith('.css')).map(describe),
  };
}

/** Milliseconds since navigation start of each step of one visit. */
interface Visit {
  scriptsLoaded: number;
  meAnswered: number;
  listAnswered: number;
  rowsShown: number;
  /** When the click reached the page (the rest of the way to clickAnswered is the console's own work). */
  clickArrived: number;
  clickAnswered: number;
}
const STEPS: Array<[keyof Visit, string]> = [
  ['scriptsLoaded', 'scripts and styles downloaded'],
  ['meAnswered', '`users/@me` answered'],
  ['listAnswered', 'flag list request answered'],
  ['rowsShown', 'rows on screen, first switch enabled'],
  ['clickArrived', 'mouse click on the first switch arrives'],
  ['clickAnswered', 'first switch clicked and answered (interactive)'],
];

const FIRST_SWITCH = '.table tbody tr [role="switch"]';

/** One visit of the flag list, timed in the page (performance.now() is ms since navigation start). */
async function visitFlagList(page: Page, url: string): Promise<Visit> {
  await page.goto(url, { waitUntil: 'commit' });
  const shown = await page.waitForFunction(
    (selector) => {
      const button = document.querySelector(selector);
      const link = button?.closest('tr')?.querySelector('a.list-title');
      if (!(button instanceof HTMLButtonElement) || button.disabled || !link) return null;
      // Installed here, not in a round trip of its own: notes when the click reaches the page.
      document.addEventListener('click', () => document.documentElement.setAttribute('data-bench-click-at', String(performance.now())), { capture: true, once: true });
      const box = button.getBoundingClientRect();
      return { at: performance.now(), checked: button.getAttribute('aria-checked'), x: box.x + box.width / 2, y: box.y + box.height / 2 };
    },
    FIRST_SWITCH,
    { polling: 'raf', timeout: 30_000 },
  );
  const { at: rowsShown, checked, x, y } = (await shown.jsonValue()) as { at: number; checked: string; x: number; y: number };
  const written = page.waitForResponse((response) => response.request().method() === 'PATCH', { timeout: 30_000 });
  // The mouse goes straight to where the switch was drawn (no waiting of the harness's own); the
  // page answers when its main thread is free, as it would for a person.
  await page.mouse.click(x, y);
  const answered = await page.waitForFunction(
    ({ selector, before }) => {
      const button = document.querySelector(selector);
      return button && button.getAttribute('aria-checked') !== before ? performance.now() : null;
    },
    { selector: FIRST_SWITCH, before: checked },
    { polling: 'raf', timeout: 30_000 },
  );
  const clickAnswered = (await answered.jsonValue()) as number;
  const clickArrived = Number(await page.evaluate(() => document.documentElement.getAttribute('data-bench-click-at')));
  // The switch's write finishes before the next visit, so that it does not share its time.
  const patch = await written;
  if (patch.status() !== 200) throw new Error(`switching the first flag answered ${patch.status()}`);
  // Plain data in, plain data out: the page runs this function's source (no helpers of ours there).
  const resources = await page.evaluate(() =>
    (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((entry) => ({ path: new URL(entry.name).pathname, end: entry.responseEnd })),
  );
  // The first answer of each kind: the switch's write makes the list ask again afterwards.
  const firstEnd = (test: (path: string) => boolean) => resources.find((entry) => test(entry.path))?.end ?? Number.NaN;
  const network = {
    scriptsLoaded: Math.max(0, ...resources.filter((entry) => entry.path.startsWith('/assets/')).map((entry) => entry.end)),
    meAnswered: firstEnd((name) => name === '/api/users/@me/'),
    listAnswered: firstEnd((name) => /^\/api\/projects\/[^/]+\/feature_flags\/$/.test(name)),
  };
  return { ...network, rowsShown, clickArrived, clickAnswered };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

export const consoleScenario: Scenario = {
  name: 'console',
  async run(config: BenchConfig, log: Log) {
    if (!existsSync(path.join(DIST, 'index.html'))) throw new Error('web/dist is missing: run `npm run build:console` first');
    const assets = firstLoadAssets();
    const jsGzip = assets.js.reduce((sum, asset) => sum + asset.gzipBytes, 0);
    const cssGzip = assets.css.reduce((sum, asset) => sum + asset.gzipBytes, 0);
    log(`first load: ${assets.js.length} script(s), ${kb(jsGzip)} gzipped; styles ${kb(cssGzip)} gzipped`);

    let running = await startBellwether(config.adminDatabaseUrl);
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
    const visits: { cold: Visit[]; warm: Visit[] } = { cold: [], warm: [] };
    const loadAtStart = os.loadavg();
    try {
      await replaceFlagsWithSql(running.databaseUrl, seedFlags(FLAGS));
      running = await running.restart();
      log(`Bellwether: ${FLAGS} flags inserted with SQL, server restarted`);
      for (let run = 0; run < RUNS; run += 1) {
        // A fresh context each run is a cold browser cache; the second visit in it is warm.
        const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
        await context.setExtraHTTPHeaders(running.headers);
        const page = await context.newPage();
        for (const kind of ['cold', 'warm'] as const) visits[kind].push(await visitFlagList(page, `${running.baseUrl}/feature_flags`));
        await context.close();
      }
    } finally {
      await browser.close();
      await running.stop();
    }
    const loadAtEnd = os.loadavg();
    const step = (kind: 'cold' | 'warm', name: keyof Visit) => median(visits[kind].map((visit) => visit[name]));
    const cold = step('cold', 'clickAnswered');
    const warm = step('warm', 'clickAnswered');
    const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
    const rows = [
      ['measure', 'value', 'aim'],
      ['JavaScript on first load (gzipped)', kb(jsGzip), `≤ ${kb(JS_BUDGET_BYTES)} ${jsGzip <= JS_BUDGET_BYTES ? 'met' : 'MISSED'}`],
      ['styles on first load (gzipped)', kb(cssGzip), ''],
      [`flag list interactive, ${FLAGS} flags, cold (median of ${RUNS})`, `${Math.round(cold)} ms`, `< ${INTERACTIVE_BUDGET_MS} ms ${cold < INTERACTIVE_BUDGET_MS ? 'met' : 'MISSED'}`],
      [`flag list interactive, ${FLAGS} flags, warm (median of ${RUNS})`, `${Math.round(warm)} ms`, `< ${INTERACTIVE_BUDGET_MS} ms ${warm < INTERACTIVE_BUDGET_MS ? 'met' : 'MISSED'}`],
      ['load average (1/5/15 min) at start → end', `${load(loadAtStart)} → ${load(loadAtEnd)}`, ''],
    ];
    const timeline = [
      ['step (ms since navigation start, median)', 'cold', 'warm'],
      ...STEPS.map(([name, label]) => [label, `${Math.round(step('cold', name))}`, `${Math.round(step('warm', name))}`]),
    ];
    return {
      file: 'console',
      settings: { flags: FLAGS, runs: RUNS, viewport: '1366x900' },
      report: `${table(rows)}\n\n${table(timeline)}`,
      // The load average says how much of the 2 cores the browser and the server really had.
      data: {
        assets,
        jsGzipBytes: jsGzip,
        cssGzipBytes: cssGzip,
        visits,
        interactiveMs: { cold: visits.cold.map((visit) => visit.clickAnswered), warm: visits.warm.map((visit) => visit.clickAnswered) },
        medianColdMs: cold,
        medianWarmMs: warm,
        loadAverage: { start: loadAtStart, end: loadAtEnd },
      },
    };
  },
};
