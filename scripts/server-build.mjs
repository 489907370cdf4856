// Bundles the service (src/main.ts and what it imports; npm packages stay imports) into
// dist/server.mjs and its chunks (dist/chunks/: what main.ts imports lazily, so that a cluster's
// primary loads only what it runs) with esbuild, so `npm start` runs compiled JavaScript instead of transpiling the
// TypeScript in every worker at every start. Tests and the CLIs keep running the sources through tsx.
//
//   node scripts/server-build.mjs             build now
//   node scripts/server-build.mjs --if-stale  build only when src/ or the lock changed since the last build
//
// Runs at `npm install` (prepare) and before `npm start`; with --if-stale an up-to-date build costs
// one hash of the inputs (a few milliseconds).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const OUT = path.join(DIST, 'server.mjs');
const STAMP = path.join(DIST, '.build-stamp');
const INPUTS = ['src', 'package-lock.json', 'tsconfig.json', 'scripts/server-build.mjs'];

function filesUnder(relative) {
  const full = path.join(ROOT, relative);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [relative];
  return readdirSync(full)
    .sort()
    .flatMap((name) => filesUnder(path.join(relative, name)));
}

function inputsStamp() {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(filesUnder)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(ROOT, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const stamp = inputsStamp();
if (process.argv.includes('--if-stale') && existsSync(OUT) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === stamp) {
  process.exit(0);
}
const started = Date.now();
const { build } = await import('esbuild');
mkdirSync(DIST, { recursive: true });
rmSync(path.join(DIST, 'chunks'), { recursive: true, force: true });
await build({
  entryPoints: { server: path.join(ROOT, 'src/main.ts') },
  outdir: DIST,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
writeFileSync(STAMP, `${stamp}\n`);
console.log(`server built into dist/server.mjs in ${Date.now() - started} ms`);
