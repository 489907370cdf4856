/**
 * The console's weight and speed: the JavaScript a first visit downloads (gzipped, as served from
 * the pre-compressed files), and how long the flag list takes to become usable in headless Chromium
 * with 1,000 flags in the project (navigation start → first row's link and switch on screen and
 * enabled), cold (empty browser cache) and warm. Aims: ≤ 250 KB of JavaScript; interactive < 1 s.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import type { BenchConfig } from '../lib/config.ts';
import { table } from '../lib/report.ts';
import { startBellwether } from '../targets/bellwether.ts';
import { replaceFlagsWithSql } from './flags-sql.ts';
import type { Log, Scenario } from './scenario.ts';
import { seedFlags } from './sdk-flags.ts';

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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
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
    const timings: { cold: number[]; warm: number[] } = { cold: [], warm: [] };
    try {
      await replaceFlagsWithSql(running.databaseUrl, seedFlags(FLAGS));
      running = await running.restart();
      log(`Bellwether: ${FLAGS} flags inserted with SQL, server restarted`);
      for (let run = 0; run < RUNS; run += 1) {
        // A fresh context each run is a cold browser cache; the second visit in it is warm.
        const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
        await context.setExtraHTTPHeaders(running.headers);
        const page = await context.newPage();
        for (const kind of ['cold', 'warm'] as const) {
          await page.goto(`${running.baseUrl}/feature_flags`, { waitUntil: 'commit' });
          const firstSwitch = page.getByRole('switch').first();
          await firstSwitch.waitFor({ state: 'visible', timeout: 30_000 });
          await page.waitForFunction(() => {
            const button = document.querySelector('[role="switch"]');
            return button instanceof HTMLButtonElement && !button.disabled && document.querySelector('.flag-key') !== null;
          });
          timings[kind].push(await page.evaluate(() => performance.now()));
        }
        await context.close();
      }
    } finally {
      await browser.close();
      await running.stop();
    }
    const cold = median(timings.cold);
    const warm = median(timings.warm);
    const rows = [
      ['measure', 'value', 'aim'],
      ['JavaScript on first load (gzipped)', kb(jsGzip), `≤ ${kb(JS_BUDGET_BYTES)} ${jsGzip <= JS_BUDGET_BYTES ? 'met' : 'MISSED'}`],
      ['styles on first load (gzipped)', kb(cssGzip), ''],
      [`flag list interactive, ${FLAGS} flags, cold (median of ${RUNS})`, `${Math.round(cold)} ms`, `< ${INTERACTIVE_BUDGET_MS} ms ${cold < INTERACTIVE_BUDGET_MS ? 'met' : 'MISSED'}`],
      [`flag list interactive, ${FLAGS} flags, warm (median of ${RUNS})`, `${Math.round(warm)} ms`, `< ${INTERACTIVE_BUDGET_MS} ms ${warm < INTERACTIVE_BUDGET_MS ? 'met' : 'MISSED'}`],
    ];
    return {
      file: 'console',
      settings: { flags: FLAGS, runs: RUNS, viewport: '1366x900' },
      report: table(rows),
      // The load average says how much of the 2 cores the browser and the server really had.
      data: { assets, jsGzipBytes: jsGzip, cssGzipBytes: cssGzip, interactiveMs: timings, medianColdMs: cold, medianWarmMs: warm, loadAverage: os.loadavg() },
    };
  },
};
