import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { servedDocument } from './served-document.ts';

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

const CONFIG = new URL('./redocly.yaml', import.meta.url).pathname;
const CLI = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');

/** The warnings redocly.yaml explains; any other problem fails the test. */
const ACCEPTED_WARNINGS = [
  'info-license #/info',
  'operation-4xx-response #/paths/~1api~1login~1methods/get/responses',
  'operation-2xx-response #/paths/~1api~1projects~1{project_id}~1experiments~1{id}/delete/responses',
  'operation-2xx-response #/paths/~1api~1projects~1{project_id}~1feature_flags~1{id}/delete/responses',
  'operation-2xx-response #/paths/~1api~1environments~1{project_id}~1feature_flags~1{id}/delete/responses',
  'operation-2xx-response #/paths/~1api~1environments~1{project_id}~1experiments~1{id}/delete/responses',
];

let t: TestApp;
let dir: string;
before(async () => {
  t = await startTestApp();
  dir = await mkdtemp(join(tmpdir(), 'bellwether-openapi-'));
});
after(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

test('the served document passes Redocly lint (recommended rules): no errors, only the warnings redocly.yaml explains', async () => {
  const file = join(dir, 'openapi.json');
  await writeFile(file, JSON.stringify(await servedDocument(t)));
  // The CLI exits 1 when it finds errors; the JSON report is on stdout either way.
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'lint', file, '--config', CONFIG, '--format=json', '--max-problems=1000'], {
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { problems: LintProblem[] };
  const problems = report.problems.map((problem) => `${problem.ruleId} ${problem.location.map((l) => l.pointer).join(' ')}`);
  const errors = report.problems.filter((problem) => problem.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
  assert.deepEqual(errors, []);
  assert.deepEqual(problems.sort(), [...ACCEPTED_WARNINGS].sort());
});
