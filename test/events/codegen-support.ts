// Fixtures and compilers for the code generation tests (test/events/codegen*.test.ts).
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import type { ReadHandle } from '../../src/db/pool.ts';
import type { TestApp } from '../helpers/app.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// ---------------------------------------------------------------- fixtures (plain SQL)

export interface PropertySpec {
  name: string;
  type: string;
  required?: boolean;
  optionalInTypes?: boolean;
}

export async function addEvent(db: ReadHandle, projectId: number, name: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>('INSERT INTO event_definitions (project_id, name) VALUES ($1, $2) RETURNING id', [projectId, name]);
  return rows[0].id;
}

export async function addGroup(db: ReadHandle, projectId: number, name: string, properties: PropertySpec[]): Promise<string> {
  const { rows } = await db.query<{ id: string }>('INSERT INTO schema_property_groups (project_id, name) VALUES ($1, $2) RETURNING id', [projectId, name]);
  for (const p of properties) {
    await db.query(
      `INSERT INTO schema_property_group_properties (property_group_id, name, property_type, is_required, is_optional_in_types)
       VALUES ($1, $2, $3, $4, $5)`,
      [rows[0].id, p.name, p.type, p.required ?? false, p.optionalInTypes ?? false],
    );
  }
  return rows[0].id;
}

export async function attach(db: ReadHandle, eventId: string, groupId: string): Promise<void> {
  await db.query('INSERT INTO event_schemas (event_definition_id, property_group_id) VALUES ($1, $2)', [eventId, groupId]);
}

/** An event with one schema group of its own. */
export async function addEventWithSchema(db: ReadHandle, projectId: number, name: string, properties: PropertySpec[]): Promise<string> {
  const eventId = await addEvent(db, projectId, name);
  await attach(db, eventId, await addGroup(db, projectId, `group of ${name}`, properties));
  return eventId;
}

/**
 * What ingestion would record: the event's properties and their event property definitions (`type`
 * null: a definition without a type; absent: no definition at all).
 */
export async function observe(db: ReadHandle, projectId: number, event: string, properties: { name: string; type?: string | null }[]): Promise<void> {
  for (const p of properties) {
    await db.query('INSERT INTO event_properties (project_id, event, property) VALUES ($1, $2, $3)', [projectId, event, p.name]);
    if (p.type === undefined) continue;
    await db.query(
      `INSERT INTO property_definitions (project_id, name, type, property_type) VALUES ($1, $2, 1, $3)
       ON CONFLICT DO NOTHING`,
      [projectId, p.name, p.type ?? null],
    );
  }
}

export async function newProject(t: TestApp, name: string): Promise<number> {
  const response = await t.request({ method: 'POST', url: '/api/projects/', payload: { name } });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().id;
}

export type Language = 'typescript' | 'python' | 'golang';

export interface Generated {
  content: string;
  event_count: number;
  schema_hash: string;
  generator_version: string;
}

export async function generated(t: TestApp, projectId: number, language: Language, key?: string): Promise<Generated> {
  const response = await t.request({ method: 'GET', url: `/api/projects/${projectId}/event_definitions/${language}/`, ...(key ? { key } : {}) });
  assert.equal(response.statusCode, 200, response.body);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  const body = response.json();
  assert.deepEqual(Object.keys(body).sort(), ['content', 'event_count', 'generator_version', 'schema_hash']);
  assert.match(body.schema_hash, /^[0-9a-f]{32}$/);
  return body;
}

// ---------------------------------------------------------------- compilers

/** A scratch directory removed when the test ends. */
export function scratch(t: TestContext, prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `bw-codegen-${prefix}-`));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): SpawnSyncReturns<string> {
  return spawnSync(command, args, { encoding: 'utf8', timeout: 120_000, ...options, env: { ...process.env, ...options.env } });
}

const missing = (result: SpawnSyncReturns<string>) => (result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

function report(label: string, result: SpawnSyncReturns<string>, files: Record<string, string>): string {
  const listing = Object.entries(files)
    .map(([name, text]) => `----- ${name}\n${text.split('\n').map((line, i) => `${String(i + 1).padStart(4)}  ${line}`).join('\n')}`)
    .join('\n');
  return `${label} failed (exit ${result.status}${result.error ? `, ${result.error.message}` : ''})\n${result.stdout}\n${result.stderr}\n${listing}`;
}

/**
 * Type-checks `files` (the generated module as posthog-typed.ts, plus usage files) with the repo's
 * tsc against the real posthog-js types, under settings as strict as a user's project may have.
 */
export function compileTypeScript(t: TestContext, files: Record<string, string>): void {
  const dir = scratch(t, 'ts');
  symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  const compilerOptions = {
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    lib: ['ES2022', 'DOM'],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    isolatedModules: true,
    verbatimModuleSyntax: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    noImplicitReturns: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noPropertyAccessFromIndexSignature: true,
  };
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: Object.keys(files) }, null, 2));
  const result = run(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', dir]);
  assert.equal(result.status, 0, report('tsc', result, files));
}

/** Writes stubs of the posthog-python API the generated module imports (posthog isn't installed). */
function pythonStubs(dir: string): void {
  mkdirSync(path.join(dir, 'posthog'));
  writeFileSync(
    path.join(dir, 'posthog/__init__.py'),
    `class Posthog:
    def __init__(self):
        self.calls = []

    def capture(self, event, **kwargs):
        self.calls.append({"event": event, **kwargs})
        return "captured"

    def capture_exception(self, exception=None, **kwargs):
        return "exception"
`,
  );
  writeFileSync(
    path.join(dir, 'posthog/args.py'),
    `from typing import Any, Dict, Optional, TypedDict


class OptionalCaptureArgs(TypedDict, total=False):
    distinct_id: Optional[str]
    properties: Optional[Dict[str, Any]]
    timestamp: Optional[Any]
    uuid: Optional[str]
    groups: Optional[Dict[str, Any]]
    send_feature_flags: bool
    disable_geoip: Optional[bool]
`,
  );
}

/**
 * `python3 -m py_compile` on the generated module, then (with stubs of the posthog package) runs
 * `script` with the module importable as `typed`; answers the script's stdout.
 */
export function compilePython(t: TestContext, content: string, script: string): string {
  const dir = scratch(t, 'py');
  const file = path.join(dir, 'typed.py');
  writeFileSync(file, content);
  const compiled = run('python3', ['-m', 'py_compile', file]);
  assert.ok(!missing(compiled), 'python3 is not installed');
  assert.equal(compiled.status, 0, report('py_compile', compiled, { 'typed.py': content }));
  pythonStubs(dir);
  writeFileSync(path.join(dir, 'check.py'), script);
  const ran = run('python3', [path.join(dir, 'check.py')], { cwd: dir, env: { PYTHONPATH: dir, PYTHONDONTWRITEBYTECODE: '1' } });
  assert.equal(ran.status, 0, report('python3 check.py', ran, { 'typed.py': content, 'check.py': script }));
  return ran.stdout;
}

/** Go is needed in CI (it installs golang-go); elsewhere its absence skips the test, visibly. */
function requireGo(t: TestContext, tool: string): boolean {
  const probe = run(tool, tool === 'go' ? ['version'] : ['-h']);
  if (!missing(probe)) return true;
  const reason = `${tool} is not installed (apt-get install golang-go)`;
  if (process.env.CI) assert.fail(`${reason}: CI must have it, see .ci/run`);
  t.skip(reason);
  return false;
}

/** A stub of the posthog-go API the generated code uses, so `go vet` type-checks it offline. */
const POSTHOG_GO_STUB = `// Package posthog stubs the parts of github.com/posthog/posthog-go that generated code uses.
package posthog

import "time"

type Properties map[string]interface{}

type Groups map[string]interface{}

type Capture struct {
	Type             string
	Uuid             string
	DistinctId       string
	Event            string
	Timestamp        time.Time
	Properties       Properties
	Groups           Groups
	SendFeatureFlags bool
}
`;

/**
 * `gofmt -e` must accept the generated file (exit 0, no output on stderr) and find it already
 * formatted (`gofmt -l` lists nothing); then `go vet` type-checks it, with `usage` (Go code in
 * the same package) against a stub of posthog-go. Answers false when skipped.
 */
export function compileGo(t: TestContext, content: string, usage = ''): boolean {
  if (!requireGo(t, 'gofmt')) return false;
  const dir = scratch(t, 'go');
  const stub = path.join(dir, 'posthog-go');
  const pkg = path.join(dir, 'typed');
  mkdirSync(stub);
  mkdirSync(pkg);
  const file = path.join(pkg, 'typed.go');
  writeFileSync(file, content);
  const files: Record<string, string> = { 'typed.go': content };
  const formatted = run('gofmt', ['-e', file]);
  assert.equal(formatted.status, 0, report('gofmt -e', formatted, files));
  assert.equal(formatted.stderr, '', report('gofmt -e', formatted, files));
  const listed = run('gofmt', ['-l', file]);
  assert.equal(listed.stdout, '', `gofmt would reformat the generated file:\n${run('gofmt', ['-d', file]).stdout}`);

  if (!requireGo(t, 'go')) return false;
  writeFileSync(path.join(stub, 'go.mod'), 'module github.com/posthog/posthog-go\n\ngo 1.19\n');
  writeFileSync(path.join(stub, 'posthog.go'), POSTHOG_GO_STUB);
  writeFileSync(
    path.join(pkg, 'go.mod'),
    'module example.com/typed\n\ngo 1.19\n\nrequire github.com/posthog/posthog-go v0.0.0\n\nreplace github.com/posthog/posthog-go => ../posthog-go\n',
  );
  if (usage) {
    writeFileSync(path.join(pkg, 'usage.go'), usage);
    files['usage.go'] = usage;
  }
  const vetted = run('go', ['vet', './...'], {
    cwd: pkg,
    env: { GOPROXY: 'off', GOFLAGS: '-mod=mod', GOWORK: 'off', GO111MODULE: 'on', GOCACHE: path.join(tmpdir(), 'bw-codegen-gocache') },
  });
  assert.equal(vetted.status, 0, report('go vet', vetted, files));
  return true;
}
