// Builds the web console (web/) into web/dist with Vite, then writes .gz and .br siblings of every
// text asset (served as they are by @fastify/static) and a stamp of the inputs it was built from.
//
//   node scripts/console-build.mjs             build now
//   node scripts/console-build.mjs --if-stale  build only when the inputs changed since the last build
//   add --warn-only                            on failure print a warning and exit 0 (npm start:
//                                              the API still starts; the console page says it is not built)
//
// Runs at `npm install` (prepare), before `npm start` and before `npm test`; with --if-stale an
// up-to-date build costs one hash of the inputs (a few milliseconds).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WEB = path.join(ROOT, 'web');
const DIST = path.join(WEB, 'dist');
const STAMP = path.join(DIST, '.build-stamp');
/** What the bundle is made of: the console, what it imports from src/ (the filter vocabulary, the key scopes, the membership rules), the lock. */
const INPUTS = ['web/index.html', 'web/vite.config.ts', 'web/package.json', 'web/public', 'web/src', 'src/targeting', 'src/accounts/auth/scopes.ts', 'src/accounts/members/levels.ts', 'package-lock.json'];
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt)$/;

function filesUnder(relative) {
  const full = path.join(ROOT, relative);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [relative];
  return readdirSync(full)
    .sort()
    .flatMap((name) => filesUnder(path.join(relative, name)));
}

export function inputsStamp() {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap(filesUnder)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(ROOT, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function isFresh(stamp) {
  return existsSync(path.join(DIST, 'index.html')) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === stamp;
}

function precompress(dir) {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) {
      precompress(file);
      continue;
    }
    if (!COMPRESSIBLE.test(name)) continue;
    const body = readFileSync(file);
    writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
    writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }));
  }
}

async function build(stamp) {
  const started = Date.now();
  const { build: viteBuild } = await import('vite');
  // Built beside dist and swapped in whole, so a running service never serves half a build.
  const next = path.join(WEB, '.dist-next');
  rmSync(next, { recursive: true, force: true });
  await viteBuild({ configFile: path.join(WEB, 'vite.config.ts'), logLevel: 'warn', build: { outDir: next } });
  precompress(next);
  writeFileSync(path.join(next, '.build-stamp'), `${stamp}\n`);
  const previous = path.join(WEB, '.dist-previous');
  rmSync(previous, { recursive: true, force: true });
  if (existsSync(DIST)) renameSync(DIST, previous);
  renameSync(next, DIST);
  rmSync(previous, { recursive: true, force: true });
  process.stdout.write(`console built into web/dist in ${Date.now() - started} ms\n`);
}

const args = new Set(process.argv.slice(2));
try {
  const stamp = inputsStamp();
  if (args.has('--if-stale') && isFresh(stamp)) process.exit(0);
  await build(stamp);
} catch (error) {
  const message = `the console could not be built: ${error instanceof Error ? error.message : String(error)}`;
  if (!args.has('--warn-only')) {
    process.stderr.write(`${message}\n`);
    process.exit(1);
  }
  process.stderr.write(`warning: ${message}\nThe API starts anyway; run \`npm run build:console\` to see why.\n`);
}
