// The checklist's SDK snippets (web/src/settings/snippets.ts) are programs a person pastes: the Go
// one is vetted by `go vet` against a stand-in for posthog-go declaring the library's signatures
// (its module proxy is out of reach here), the Python one is compiled by python3, the Ruby one
// checked by `ruby -c`; each check runs where its tool is installed and says so where it is not.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { posthogGoSnippet, posthogPythonSnippet, posthogRubySnippet, SDK_SNIPPETS } from '../../web/src/settings/snippets.ts';

const ORIGIN = 'http://127.0.0.1:8000';
const TOKEN = 'phc_example0123456789';
const work = mkdtempSync(path.join(tmpdir(), 'bellwether-snippets-'));
after(() => rmSync(work, { recursive: true, force: true }));

function tool(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  return null;
}

// The signatures the snippet uses, as posthog-go declares them (Client, Config, Capture, FeatureFlagPayload).
const POSTHOG_GO_STAND_IN = `package posthog

type Message interface{ internal() }

type Properties map[string]interface{}

type Capture struct {
	DistinctId string
	Event      string
	Properties Properties
}

func (Capture) internal() {}

type FeatureFlagPayload struct {
	Key        string
	DistinctId string
}

type Config struct {
	Endpoint       string
	PersonalApiKey string
}

type Client interface {
	Close() error
	Enqueue(Message) error
	IsFeatureEnabled(FeatureFlagPayload) (interface{}, error)
}

func NewWithConfig(apiKey string, config Config) (Client, error) { return nil, nil }
`;

test('every snippet carries the token and this server', () => {
  for (const snippet of SDK_SNIPPETS) {
    const code = snippet.code(ORIGIN, TOKEN);
    assert.ok(code.includes(TOKEN), `${snippet.label} holds the token`);
    assert.ok(code.includes(ORIGIN), `${snippet.label} holds the server's address`);
  }
});

test('the posthog-go snippet is a whole program that go vet accepts', (t) => {
  const go = tool('go');
  if (!go) return t.skip('go is not installed');
  const dir = path.join(work, 'go');
  mkdirSync(path.join(dir, 'posthog-go'), { recursive: true });
  writeFileSync(path.join(dir, 'posthog-go', 'go.mod'), 'module github.com/posthog/posthog-go\n\ngo 1.19\n');
  writeFileSync(path.join(dir, 'posthog-go', 'posthog.go'), POSTHOG_GO_STAND_IN);
  writeFileSync(
    path.join(dir, 'go.mod'),
    'module snippet\n\ngo 1.19\n\nrequire github.com/posthog/posthog-go v0.0.0\n\nreplace github.com/posthog/posthog-go => ./posthog-go\n',
  );
  writeFileSync(path.join(dir, 'main.go'), `${posthogGoSnippet(ORIGIN, TOKEN)}\n`);
  const env = { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GOCACHE: path.join(work, 'gocache'), GOPATH: path.join(work, 'gopath') };
  execFileSync(go, ['vet', '.'], { cwd: dir, env, stdio: 'pipe' });
  const formatted = execFileSync(tool('gofmt') ?? path.join(path.dirname(go), 'gofmt'), ['-l', 'main.go'], { cwd: dir, env }).toString();
  assert.equal(formatted, '', 'the snippet is gofmt-formatted');
});

test('the posthog-python snippet compiles', (t) => {
  const python = tool('python3');
  if (!python) return t.skip('python3 is not installed');
  const file = path.join(work, 'snippet.py');
  writeFileSync(file, posthogPythonSnippet(ORIGIN, TOKEN));
  execFileSync(python, ['-c', 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])', file], { stdio: 'pipe' });
});

test('the posthog-ruby snippet is valid Ruby', (t) => {
  const ruby = tool('ruby');
  if (!ruby) return t.skip('ruby is not installed');
  const file = path.join(work, 'snippet.rb');
  writeFileSync(file, posthogRubySnippet(ORIGIN, TOKEN));
  assert.match(execFileSync(ruby, ['-c', file]).toString(), /Syntax OK/);
});
