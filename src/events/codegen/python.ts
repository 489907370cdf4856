import { NameAllocator, quote, snakeKeepCase, snakeLower, startsWithDigit } from './identifiers.ts';
import { byName, type CodegenEvent, type CodegenProperty, type Generator, type GeneratorInput } from './model.ts';

/** Class-based design: `PosthogTyped(Posthog)` with one `capture_<event>` method per event. */
export const PYTHON_VERSION = '1.0.0';

/** Python's keywords (`keyword.kwlist`); soft keywords (`match`, `case`, `type`, `_`) are valid names. */
const KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

/**
 * Names a property parameter must not take: the method's own names, and the keys of posthog's
 * `OptionalCaptureArgs`, which travel in `**kwargs` (a parameter of the same name would swallow them).
 */
const RESERVED_PARAMETERS = [
  'self',
  'extra_properties',
  'kwargs',
  'properties',
  'distinct_id',
  'timestamp',
  'uuid',
  'groups',
  'send_feature_flags',
  'disable_geoip',
];

/** Methods of posthog's `Posthog` a `capture_<event>` method must not override. */
const RESERVED_METHODS = ['capture_exception'];

const suffix = (base: string, n: number) => `${base}_${n}`;

/** `capture_<snake>`: `API-Request` → `capture_api_request`, `$pageview` → `capture_pageview`. */
export function pythonMethodBase(eventName: string): string {
  let snake = snakeLower(eventName);
  if (snake === '') snake = 'event';
  else if (startsWithDigit(snake)) snake = `event_${snake}`;
  return `capture_${snake}`;
}

/** A property's parameter name before collisions: `file-size` → `file_size`, `class` → `class_`, `1st` → `prop_1st`. */
export function pythonParameterBase(propertyName: string): string {
  let name = snakeKeepCase(propertyName);
  if (name === '') name = 'value';
  else if (startsWithDigit(name)) name = `prop_${name}`;
  return KEYWORDS.has(name) ? `${name}_` : name;
}

interface TypeUse {
  datetime: boolean;
  typing: Set<string>;
}

function pythonTypeOf(type: string | null, use: TypeUse): string {
  switch (type) {
    case 'String':
      return 'str';
    case 'Numeric':
      return 'float';
    case 'Boolean':
      return 'bool';
    case 'DateTime':
      use.datetime = true;
      return 'datetime';
    case 'Array':
      use.typing.add('List').add('Any');
      return 'List[Any]';
    case 'Object':
      use.typing.add('Dict').add('Any');
      return 'Dict[str, Any]';
    default:
      use.typing.add('Any');
      return 'Any';
  }
}

function pythonType(property: CodegenProperty, use: TypeUse): string {
  const members = [...new Set(property.types.map((type) => pythonTypeOf(type, use)))];
  if (members.includes('Any')) return 'Any';
  if (members.length === 1) return members[0];
  use.typing.add('Union');
  return `Union[${members.join(', ')}]`;
}

function method(event: CodegenEvent, methodName: string, use: TypeUse): string {
  const parameters = new NameAllocator(RESERVED_PARAMETERS, suffix);
  const named = byName(event.properties).map((property) => ({
    property,
    identifier: parameters.allocate(pythonParameterBase(property.name)),
  }));
  const required = named.filter((p) => p.property.required);
  const optional = named.filter((p) => !p.property.required);
  use.typing.add('Optional').add('Dict').add('Any');
  const signature = [
    '        self,',
    '        *,',
    ...required.map((p) => `        ${p.identifier}: ${pythonType(p.property, use)},`),
    ...optional.map((p) => `        ${p.identifier}: Optional[${pythonType(p.property, use)}] = None,`),
    '        extra_properties: Optional[Dict[str, Any]] = None,',
    '        **kwargs: Unpack[OptionalCaptureArgs],',
  ];
  const body = [
    required.length === 0
      ? '        properties: Dict[str, Any] = {}'
      : ['        properties: Dict[str, Any] = {', ...required.map((p) => `            ${quote(p.property.name)}: ${p.identifier},`), '        }'].join('\n'),
    ...optional.map((p) => `        if ${p.identifier} is not None:\n            properties[${quote(p.property.name)}] = ${p.identifier}`),
    '        if extra_properties:\n            properties.update(extra_properties)',
    `        return self.capture(${quote(event.name)}, properties=properties, **kwargs)`,
  ];
  const doc =
    event.source === 'none'
      ? 'Captures the event; it has no known properties, pass them in extra_properties.'
      : event.source === 'observed'
        ? 'Captures the event, with the properties it was seen with (no schema defines it).'
        : 'Captures the event, with the properties its schema defines.';
  return `    def ${methodName}(\n${signature.join('\n')}\n    ) -> Optional[str]:\n        """${doc}"""\n${body.join('\n')}\n`;
}

function generate({ events, generatedAt }: GeneratorInput): string {
  const use: TypeUse = { datetime: false, typing: new Set() };
  const methodNames = new NameAllocator(RESERVED_METHODS, suffix);
  const methods = events.map((event) => method(event, methodNames.allocate(pythonMethodBase(event.name)), use));
  const imports = [
    ...(use.datetime ? ['from datetime import datetime'] : []),
    ...(use.typing.size > 0 ? [`from typing import ${[...use.typing].sort().join(', ')}`] : []),
    ...(methods.length > 0 ? ['', 'from typing_extensions import Unpack'] : []),
    '',
    'from posthog import Posthog',
    ...(methods.length > 0 ? ['from posthog.args import OptionalCaptureArgs'] : []),
  ];
  const body = methods.length === 0 ? '    pass\n' : methods.join('\n');
  return `"""
GENERATED FILE - DO NOT EDIT

This file was auto-generated by Bellwether from the project's event definitions.
Generated at: ${generatedAt}
Generator version: ${PYTHON_VERSION}

Type-safe capture methods for posthog-python: one capture_<event>() per event, with keyword
arguments for the event's properties (required ones first) and extra_properties for any others.
"""

${imports.join('\n').replace(/^\n+/, '')}


class PosthogTyped(Posthog):
    """Posthog with a typed capture_<event>() method for each event defined in the project."""

${body}

# USAGE GUIDE
#
#     from posthog_typed import PosthogTyped
#
#     posthog = PosthogTyped("<project token>", host="<your Bellwether URL>")
#     posthog.capture_<event>(distinct_id="user-1", <property>=<value>)
#
# Regenerate this file whenever the event definitions change.
`;
}

export const pythonGenerator: Generator = { version: PYTHON_VERSION, generate };
