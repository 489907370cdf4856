// The generated code compiles, whatever the names: tsc (real posthog-js types), python3, gofmt and
// go vet. One project holds every hostile name, so each compiler runs once per language.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  addEvent,
  addEventWithSchema,
  addGroup,
  attach,
  compileGo,
  compilePython,
  compileTypeScript,
  generated,
  newProject,
  observe,
  type PropertySpec,
} from './codegen-support.ts';

const SCHEMA_EVENT = 'file downloaded';

/** The properties of SCHEMA_EVENT's first group. */
const HOSTILE_PROPERTIES: PropertySpec[] = [
  { name: 'file-size', type: 'Numeric', required: true },
  { name: 'file_name', type: 'String', required: true },
  { name: 'file_size', type: 'Numeric' },
  { name: 'with space', type: 'String' },
  { name: '$current_url', type: 'String' },
  { name: `it's "quoted"`, type: 'String' },
  { name: 'back\\slash', type: 'Boolean' },
  { name: 'new\nline', type: 'DateTime' },
  { name: 'sep\u2028arator\u2029', type: 'String' },
  { name: 'bom\ufeffinside', type: 'String' },
  { name: 'tab\tcr\rbell\u0007del\u007fnel\u0085', type: 'String' },
  { name: '*/ /* -->', type: 'String' },
  { name: 'class', type: 'String', required: true },
  ...['func', 'type', 'import', 'def', 'None', 'True', 'lambda', 'default', 'nil', 'string', 'interface'].map((name) => ({ name, type: 'Numeric' })),
  { name: '1st place', type: 'Numeric' },
  { name: '42', type: 'Boolean', required: true },
  { name: 'café', type: 'String' },
  { name: 'cafe', type: 'String' },
  { name: 'ＡＢＣ', type: 'String' },
  { name: '日本', type: 'Object' },
  { name: '🎉', type: 'Array' },
  { name: '---', type: 'Duration', required: true },
  { name: '', type: 'SomethingElse' },
  // Names the generated code uses itself (parameters, locals, packages, posthog's capture arguments).
  ...['self', 'kwargs', 'extra_properties', 'properties', 'distinct_id', 'distinct id', 'timestamp', 'uuid', 'groups'].map((name) => ({ name, type: 'String' })),
  ...['base', 'posthog', 'time', 'capture', 'options', 'option', 'props', 'merged', 'k', 'v', 'p'].map((name) => ({ name, type: 'String' })),
  ...['__proto__', 'constructor', 'toString', 'extra props'].map((name) => ({ name, type: 'String' })),
];

/** Events without a schema (loose): collisions, keywords, quotes, control characters, scripts. */
const LOOSE_EVENTS = [
  'file-size',
  'file_size',
  'class',
  'func',
  'type',
  'import',
  'def',
  'None',
  'default',
  'exception',
  'Capture',
  `user'event"with\\quotes`,
  'line\nbreak',
  'sep\u2028arator',
  'bom\ufeffinside',
  '*/ evil /*',
  '123 start',
  '42',
  'café',
  '日本',
  '🎉 party',
  '---',
  '',
  'with space',
  'a with foo',
  '$pageleave',
  '$screen',
];

const EXCLUDED = ['$autocapture', '$identify', '$feature_flag_called', '$$plugin_metrics'];

let t: TestApp;
let emptyProject: number;
let included: string[];

before(async () => {
  t = await startTestApp();
  const db = t.db.pool;
  const p = t.projectId;
  const schemaEvent = await addEventWithSchema(db, p, SCHEMA_EVENT, HOSTILE_PROPERTIES);
  // A second group: `shared` only here; `file_name` again, optional and with another type (a union).
  await attach(db, schemaEvent, await addGroup(db, p, 'second', [{ name: 'shared', type: 'String', required: true }, { name: 'file_name', type: 'DateTime' }]));
  await addEventWithSchema(db, p, 'a', [{ name: 'foo capture', type: 'String' }, { name: 'extra props', type: 'Numeric' }]);
  await addEventWithSchema(db, p, '$pageview', [{ name: '$current_url', type: 'String', required: true }, { name: 'title', type: 'String' }]);
  for (const name of [...LOOSE_EVENTS, ...EXCLUDED]) await addEvent(db, p, name);
  await addEvent(db, p, 'observed event');
  await observe(db, p, 'observed event', [
    { name: 'plan', type: 'String' },
    { name: 'seats', type: 'Numeric' },
    { name: 'odd key!', type: null },
    { name: 'undefined def' },
    { name: '$browser', type: 'String' },
  ]);
  included = [SCHEMA_EVENT, 'a', '$pageview', 'observed event', ...LOOSE_EVENTS];
  emptyProject = await newProject(t, 'Nothing yet');
});
after(async () => {
  await t.close();
});

test('every language counts the included events', async () => {
  for (const language of ['typescript', 'python', 'golang'] as const) {
    assert.equal((await generated(t, t.projectId, language)).event_count, included.length, language);
    assert.equal((await generated(t, emptyProject, language)).event_count, 0, language);
  }
});

const tsString = (value: string) => JSON.stringify(value);

test('TypeScript compiles under tsc with the real posthog-js types, and types what it should', async (ctx) => {
  const hostile = await generated(t, t.projectId, 'typescript');
  const empty = await generated(t, emptyProject, 'typescript');
  const requiredProps = `{ 'file-size': 1, file_name: 'a.txt', class: 'c', '42': true, '---': null, shared: 's' }`;
  const looseCalls = LOOSE_EVENTS.map((name) => `posthog.capture(${tsString(name)})\nposthog.capture(${tsString(name)}, { anything: 1 })`);
  const usage = `import posthog, { type EventName, type EventProperties } from './posthog-typed'
import emptyPosthog, { type EventName as NoEventName } from './posthog-typed-empty'

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false

// Exactly the included events: the hostile names as written here, none of the excluded ones.
const names: Same<EventName, ${included.map(tsString).join(' | ')}> = true
const none: Same<NoEventName, never> = true

posthog.capture(${tsString(SCHEMA_EVENT)}, ${requiredProps})
posthog.capture(${tsString(SCHEMA_EVENT)}, { ...${requiredProps}, file_name: new Date(), 'new\\nline': new Date(), '日本': { a: 1 }, '🎉': [1], 'not in schema': 1 })
posthog.capture(${tsString(SCHEMA_EVENT)}, { ...${requiredProps}, ${tsString('sep\u2028arator\u2029')}: 'raw separators name the same key' })
// @ts-expect-error a required property is missing
posthog.capture(${tsString(SCHEMA_EVENT)}, { 'file-size': 1, '42': true, '---': null, shared: 's' })
// @ts-expect-error properties are mandatory when some are required
posthog.capture(${tsString(SCHEMA_EVENT)})
// @ts-expect-error a Numeric property takes no string
posthog.capture(${tsString(SCHEMA_EVENT)}, { ...${requiredProps}, file_size: 'big' })
// @ts-expect-error a Boolean property takes no number
posthog.capture(${tsString(SCHEMA_EVENT)}, { ...${requiredProps}, 'back\\\\slash': 1 })

posthog.capture('$pageview', { $current_url: 'https://example.com' })
// @ts-expect-error $current_url is required on $pageview
posthog.capture('$pageview', { title: 'no url' })
posthog.capture('observed event')
posthog.capture('observed event', { plan: 'pro', seats: 3, 'odd key!': [], 'undefined def': {} })
// @ts-expect-error observed types are checked too
posthog.capture('observed event', { seats: 'three' })
posthog.capture('a', { 'foo capture': 'x', 'extra props': 2 })
${looseCalls.join('\n')}

// Names not defined yet are accepted as literals; a plain string needs captureRaw.
posthog.capture('not defined yet', { x: 1 })
const dynamic: string = String(Math.random())
// @ts-expect-error a plain string is refused
posthog.capture(dynamic)
posthog.captureRaw(dynamic, { x: 1 })
posthog.captureRaw('$autocapture')
posthog.identify('user-1')

const props: EventProperties<'a'> = { 'foo capture': 'x', extra: true }
emptyPosthog.capture('anything', { a: 1 })
emptyPosthog.captureRaw(dynamic)
export { names, none, props }
`;
  const started = Date.now();
  compileTypeScript(ctx, { 'posthog-typed.ts': hostile.content, 'posthog-typed-empty.ts': empty.content, 'usage.ts': usage });
  ctx.diagnostic(`tsc: ${Date.now() - started} ms`);
});

/** Lists PosthogTyped's own methods with their parameters, then makes `calls` ([method, kwargs] pairs). */
function pythonCheck(calls: [string, Record<string, unknown>][]): string {
  return `import inspect
import json
import sys

from typed import PosthogTyped

methods = {}
for name, member in PosthogTyped.__dict__.items():
    if callable(member):
        methods[name] = [
            [p.name, p.kind.name, p.default is inspect.Parameter.empty, inspect.formatannotation(p.annotation)]
            for p in inspect.signature(member).parameters.values()
        ]
client = PosthogTyped()
calls = json.loads(${JSON.stringify(JSON.stringify(calls))})
results = [getattr(client, method)(**kwargs) for method, kwargs in calls]
json.dump({"methods": methods, "results": results, "calls": client.calls}, sys.stdout, default=str)
`;
}

test('Python compiles (py_compile), imports over a posthog stub, and maps identifiers back to names', async (ctx) => {
  const hostile = await generated(t, t.projectId, 'python');
  const empty = await generated(t, emptyProject, 'python');
  const started = Date.now();

  const emptyOut = JSON.parse(compilePython(ctx, empty.content, pythonCheck([])));
  assert.deepEqual(Object.keys(emptyOut.methods), []);

  const required = { file_size: 1, file_name: 'a.txt', class_: 'c', prop_42: true, value_3: null, shared: 's' };
  const out = JSON.parse(
    compilePython(
      ctx,
      hostile.content,
      pythonCheck([
        ['capture_file_downloaded', { distinct_id: 'u1', ...required, file_size_2: 2, cafe_2: 'accent', new_line: 'nl', self_2: 'me', distinct_id_2: 'spaced', distinct_id_3: 'snake', extra_properties: { extra: 1 } }],
        ['capture_file_size', { distinct_id: 'u2' }],
        ['capture_file_size_2', { distinct_id: 'u3', extra_properties: { x: 1 } }],
        ['capture_exception_2', {}],
        ['capture_exception', {}],
        ['capture_event_2', {}],
      ]),
    ),
  );

  // Method names: snake case; collisions get _2; posthog's own capture_exception is not overridden.
  const methodNames = Object.keys(out.methods);
  assert.equal(methodNames.length, included.length);
  for (const name of [
    'capture_file_downloaded',
    'capture_file_size',
    'capture_file_size_2',
    'capture_exception_2',
    'capture_class',
    'capture_none',
    'capture_event',
    'capture_event_2',
    'capture_event_3',
    'capture_event_123_start',
    'capture_event_42',
    'capture_cafe',
    'capture_party',
    'capture_evil',
    'capture_pageview',
    'capture_user_event_with_quotes',
    'capture_a_with_foo',
  ]) {
    assert.ok(methodNames.includes(name), `${name} in ${methodNames.join(', ')}`);
  }
  assert.ok(!methodNames.includes('capture_exception'));
  assert.ok(!methodNames.some((name) => /autocapture|identify|feature_flag_called|plugin/.test(name)));

  // Parameters: keyword-only; required ones first, typed; optional ones Optional[...] = None.
  const params = new Map<string, [string, boolean, string]>(
    out.methods.capture_file_downloaded.map(([name, kind, required, annotation]: [string, string, boolean, string]) => [name, [kind, required, annotation]]),
  );
  assert.equal(params.get('self')?.[0], 'POSITIONAL_OR_KEYWORD');
  for (const [name, annotation] of [['file_size', 'float'], ['class_', 'str'], ['prop_42', 'bool'], ['value_3', 'Any'], ['shared', 'str']]) {
    assert.deepEqual(params.get(name), ['KEYWORD_ONLY', true, annotation], name);
  }
  for (const [name, annotation] of [
    ['file_size_2', 'Optional[float]'],
    ['file_name', 'Union[str, datetime.datetime, NoneType]'], // Python's spelling of Optional[Union[str, datetime]]
    ['new_line', 'Optional[datetime.datetime]'],
    ['None_', 'Optional[float]'],
    ['True_', 'Optional[float]'],
    ['lambda_', 'Optional[float]'],
    ['def_', 'Optional[float]'],
    ['type', 'Optional[float]'],
    ['prop_1st_place', 'Optional[float]'],
    ['cafe', 'Optional[str]'],
    ['cafe_2', 'Optional[str]'],
    ['ABC', 'Optional[str]'],
    ['value', 'Optional[Any]'],
    ['value_2', 'Optional[str]'],
    ['value_4', 'Optional[Dict[str, Any]]'],
    ['value_5', 'Optional[List[Any]]'],
    ['self_2', 'Optional[str]'],
    ['distinct_id_2', 'Optional[str]'], // 'distinct id'
    ['distinct_id_3', 'Optional[str]'], // 'distinct_id'
    ['timestamp_2', 'Optional[str]'],
    ['extra_properties', 'Optional[Dict[str, Any]]'],
  ]) {
    assert.deepEqual(params.get(name), ['KEYWORD_ONLY', false, annotation], name);
  }
  assert.deepEqual(params.get('kwargs')?.[0], 'VAR_KEYWORD');
  const order = out.methods.capture_file_downloaded.map(([name]: [string]) => name);
  assert.ok(order.indexOf('shared') < order.indexOf('cafe'), 'required before optional');

  // Calls: properties keyed by the original names, distinct_id through **kwargs.
  assert.deepEqual(out.results, ['captured', 'captured', 'captured', 'captured', 'exception', 'captured']);
  const [first, second, third, fourth, fifth] = out.calls;
  assert.equal(first.event, SCHEMA_EVENT);
  assert.equal(first.distinct_id, 'u1');
  assert.deepEqual(first.properties, {
    'file-size': 1,
    file_name: 'a.txt',
    class: 'c',
    '42': true,
    '---': null,
    shared: 's',
    file_size: 2,
    café: 'accent',
    'new\nline': 'nl',
    self: 'me',
    'distinct id': 'spaced',
    distinct_id: 'snake',
    extra: 1,
  });
  assert.deepEqual([second.event, second.distinct_id, second.properties], ['file-size', 'u2', {}]);
  assert.deepEqual([third.event, third.properties], ['file_size', { x: 1 }]);
  assert.equal(fourth.event, 'exception');
  assert.equal(fifth.event, '---');
  ctx.diagnostic(`python: ${Date.now() - started} ms`);
});

test('Go is gofmt-clean and passes go vet against a posthog-go stub, with the expected names', async (ctx) => {
  const hostile = await generated(t, t.projectId, 'golang');
  const empty = await generated(t, emptyProject, 'golang');
  const started = Date.now();
  if (!compileGo(ctx, empty.content)) return;
  assert.doesNotMatch(empty.content, /^import/m);
  assert.match(hostile.content, /^\t"time"$/m);

  // Required parameters in name order ('---', '42', 'class', 'file-size', 'shared'); options for the rest.
  const usage = `package typed

import (
	"time"

	"github.com/posthog/posthog-go"
)

var captures = []posthog.Capture{
	FileDownloadedCapture("u", nil, true, "c", 1.5, "s",
		FileDownloadedWithFileSize(2),
		FileDownloadedWithFileName(time.Now()),
		FileDownloadedWithNewLine(time.Now()),
		FileDownloadedWithCafe("plain"),
		FileDownloadedWithCafe2("accent"),
		FileDownloadedWithABC("fullwidth"),
		FileDownloadedWithProp(struct{}{}),
		FileDownloadedWithProp2("*/ /* -->"),
		FileDownloadedWithProp3(map[string]interface{}{}),
		FileDownloadedWithProp4([]interface{}{1}),
		FileDownloadedWith1stPlace(1),
		FileDownloadedWithFunc(1),
		FileDownloadedWithNil(1),
		FileDownloadedWithDistinctId("prop"),
		FileDownloadedWithPosthog("prop"),
		FileDownloadedWithExtraProps2("the property"),
		FileDownloadedWithExtraProps(posthog.Properties{"extra": 1}),
	),
	FileDownloadedCaptureFromBase(posthog.Capture{DistinctId: "u"}, nil, true, "c", 1.5, "s"),
	ACapture("u", AWithFooCapture("x"), AWithExtraProps2(2), AWithExtraProps(posthog.Properties{})),
	AWithFoo2Capture("u"),
	PageviewCapture("u", "https://example.com", PageviewWithTitle("t")),
	PageleaveCapture("u", posthog.Properties{"a": 1}),
	ScreenCaptureFromBase(posthog.Capture{}, posthog.Properties{"a": 1}),
	ObservedEventCapture("u", ObservedEventWithPlan("pro"), ObservedEventWithSeats(3), ObservedEventWithOddKey(nil)),
	FileSizeCapture("u"),
	FileSize2Capture("u"),
	CaptureCapture("u"),
	ExceptionCapture("u"),
	EventCapture("u"),
	Event2Capture("u"),
	Event3Capture("u"),
	Event123StartCapture("u"),
	Event42Capture("u"),
	CafeCapture("u"),
	PartyCapture("u"),
	UserEventWithQuotesCapture("u"),
	LineBreakCapture("u"),
}
`;
  compileGo(ctx, hostile.content, usage);
  ctx.diagnostic(`gofmt + go vet: ${Date.now() - started} ms`);
});
