// Start-up time of `npm start`, first start and restart, for one or more checkouts side by side.
//
//   node bench/startup.mjs DIR [DIR ...]
//
// For each checkout (installed: node_modules present, `npm install`'s prepare step done), in turn:
// the first start (its ./data removed: the embedded PostgreSQL cluster is created; a fresh TMPDIR,
// so that no transpiler cache of an earlier run helps), then a restart (same data, same TMPDIR).
// Each is timed from `npm start` until the URL is printed and `/_health` answers 200; the log's
// lines are timed on the way (`phases`). Each server is stopped (SIGTERM) before the next starts.
// BENCH_STARTUP_ROUNDS (default 1) repeats the whole, alternating the order of the checkouts.
// Writes bench/results/startup-<date>-<time>.json. Run it under /work/tools/run-bench.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const RESULTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'results');
const PORT = Number(process.env.BENCH_STARTUP_PORT ?? '7210');
const TIMEOUT_MS = 180_000;
const dirs = process.argv.slice(2).map((dir) => path.resolve(dir));
if (dirs.length === 0) {
  console.error('usage: node bench/startup.mjs DIR [DIR ...]');
  process.exit(2);
}

async function healthy(url) {
  for (;;) {
    try {
      const response = await fetch(`${url}/_health`);
      if (response.status === 200) return;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function start(dir, tmp) {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const child = spawn('npm', ['start'], {
      cwd: dir,
      env: { ...process.env, PORT: String(PORT), TMPDIR: tmp, NODE_OPTIONS: '' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const phases = [];
    let printedAt = null;
    let buffered = '';
    const onLine = (line) => {
      const at = Math.round(performance.now() - began);
      let message = line.trim();
      try {
        message = JSON.parse(line).msg ?? message;
      } catch {
        // a plain line
      }
      // The printed key and sign-in link are credentials: kept out of the results.
      const shown = String(message).replace(/ph[xcs]_[\w-]+/g, '[key]').replace(/token=[\w-]+/g, 'token=[redacted]');
      if (shown) phases.push({ ms: at, line: shown.slice(0, 400) });
      const match = /Bellwether is running at (\S+)/.exec(line);
      if (match && printedAt === null) {
        printedAt = at;
        healthy(match[1]).then(() => resolve({ child, ms: Math.round(performance.now() - began), printedMs: printedAt, phases }));
      }
    };
    const feed = (chunk) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop();
      lines.forEach(onLine);
    };
    child.stdout.on('data', feed);
    child.stderr.on('data', feed);
    child.on('exit', (code) => reject(new Error(`npm start in ${dir} exited (${code}) before it was ready:\n${phases.map((p) => p.line).join('\n')}`)));
    setTimeout(() => reject(new Error(`npm start in ${dir} not ready after ${TIMEOUT_MS} ms`)), TIMEOUT_MS).unref();
  });
}

function stop(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', () => resolve());
    process.kill(-child.pid, 'SIGTERM');
  });
}

async function measure(dir) {
  rmSync(path.join(dir, 'data'), { recursive: true, force: true });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'startup-tmp-'));
  // As /tmp: the embedded PostgreSQL's system user reads its password file from there.
  chmodSync(tmp, 0o1777);
  try {
    const first = await start(dir, tmp);
    await stop(first.child);
    const again = await start(dir, tmp);
    await stop(again.child);
    return {
      dir,
      first: { ms: first.ms, printedMs: first.printedMs, phases: first.phases },
      restart: { ms: again.ms, printedMs: again.printedMs, phases: again.phases },
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const rounds = Math.max(1, Number(process.env.BENCH_STARTUP_ROUNDS ?? '1'));
const runs = [];
for (let round = 0; round < rounds; round += 1) {
  const order = round % 2 === 0 ? dirs : [...dirs].reverse();
  for (const dir of order) {
    const loadBefore = os.loadavg()[0];
    const result = await measure(dir);
    runs.push({ round, loadBefore, ...result });
    console.log(`${path.basename(dir)}: first start ${result.first.ms} ms (URL at ${result.first.printedMs}), restart ${result.restart.ms} ms (URL at ${result.restart.printedMs}); load ${loadBefore.toFixed(1)}`);
  }
}
const stamp = new Date().toISOString().replace(/:\d\d\.\d+Z$/, '').replace('T', '-').replace(':', '');
mkdirSync(RESULTS, { recursive: true });
const file = path.join(RESULTS, `startup-${stamp}.json`);
writeFileSync(file, `${JSON.stringify({ cores: os.availableParallelism(), loadAverage: os.loadavg(), runs }, null, 2)}\n`);
console.log(`written ${path.relative(process.cwd(), file)}`);
