// Runs the type checks (service and console), builds the console when its inputs changed (the
// browser tests serve it), then every test file under test/ with node's test runner (through tsx).
// With test files as arguments: only those, after the build check. The test database
// (TEST_DATABASE_URL) is created first when missing.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_TEST_DATABASE_URL, ensureTestDatabase } from './test-database.mjs';

function testFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return testFiles(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit', env: process.env }).status ?? 1;

process.env.TEST_DATABASE_URL ||= DEFAULT_TEST_DATABASE_URL;
const problem = await ensureTestDatabase(process.env.TEST_DATABASE_URL);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}

const only = process.argv.slice(2);
if (only.length === 0) {
  process.stdout.write('type check (tsc --noEmit, service and console)\n');
  if (run('npx', ['tsc', '--noEmit']) !== 0) process.exit(1);
  if (run('npx', ['tsc', '--noEmit', '-p', 'web']) !== 0) process.exit(1);
}
if (run(process.execPath, ['scripts/console-build.mjs', '--if-stale']) !== 0) process.exit(1);
const files = only.length ? only : testFiles('test').sort();
const status = run(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files]);
process.exit(status);
