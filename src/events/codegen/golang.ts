import { NameAllocator, camelCase, pascalKeepCase, quote, startsWithDigit } from './identifiers.ts';
import { byName, type CodegenEvent, type CodegenProperty, type Generator, type GeneratorInput } from './model.ts';

export const GOLANG_VERSION = '1.0.0';

const KEYWORDS = [
  'break', 'case', 'chan', 'const', 'continue', 'default', 'defer', 'else', 'fallthrough', 'for', 'func', 'go', 'goto', 'if',
  'import', 'interface', 'map', 'package', 'range', 'return', 'select', 'struct', 'switch', 'type', 'var',
];

/** Go's predeclared identifiers: a parameter named `nil` or `string` would shadow them. */
const PREDECLARED = [
  'any', 'bool', 'byte', 'comparable', 'complex64', 'complex128', 'error', 'float32', 'float64', 'int', 'int8', 'int16',
  'int32', 'int64', 'rune', 'string', 'uint', 'uint8', 'uint16', 'uint32', 'uint64', 'uintptr', 'true', 'false', 'iota',
  'nil', 'append', 'cap', 'clear', 'close', 'complex', 'copy', 'delete', 'imag', 'len', 'make', 'max', 'min', 'new',
  'panic', 'print', 'println', 'real', 'recover',
];

/** Escaped with a trailing `_`, as keywords are. */
const ESCAPED = new Set([...KEYWORDS, ...PREDECLARED]);

/**
 * Names a property parameter must not take: the fixed parameters, the locals of the generated
 * bodies, and the imported packages (a parameter `posthog` would hide the package).
 */
const RESERVED_PARAMETERS = ['distinctId', 'base', 'options', 'option', 'props', 'merged', 'capture', 'k', 'v', 'posthog', 'time'];

/** A function base name: `downloaded_file` → `DownloadedFile`, `$pageview` → `Pageview`, `123_start` → `Event123Start`. */
export function goFunctionBase(eventName: string): string {
  const pascal = pascalKeepCase(eventName);
  if (pascal === '') return 'Event';
  return startsWithDigit(pascal) ? `Event${pascal}` : pascal;
}

/** A parameter name before collisions: `file_name` → `fileName`, `Func` → `func_`, `1st` → `param1st`. */
export function goParameterBase(propertyName: string): string {
  let name = camelCase(propertyName);
  if (name === '') name = 'value';
  else if (startsWithDigit(name)) name = `param${name}`;
  return ESCAPED.has(name) ? `${name}_` : name;
}

/** The option-function suffix: `HTTPResponse` → `HTTPResponse`, empty → `Prop`. */
export function goOptionSuffix(propertyName: string): string {
  return pascalKeepCase(propertyName) || 'Prop';
}

function goTypeOf(type: string | null): string {
  switch (type) {
    case 'String':
      return 'string';
    case 'Numeric':
      return 'float64';
    case 'Boolean':
      return 'bool';
    case 'DateTime':
      return 'time.Time';
    case 'Array':
      return '[]interface{}';
    case 'Object':
      return 'map[string]interface{}';
    default:
      return 'interface{}';
  }
}

/** A property's Go type; several types (a property in several groups) can only be `interface{}`. */
export function goType(property: CodegenProperty): string {
  const members = [...new Set(property.types.map(goTypeOf))];
  return members.length === 1 ? members[0] : 'interface{}';
}

interface Param {
  property: CodegenProperty;
  identifier: string;
  type: string;
}

/** Merges `props` into a copy of `base.Properties` (the caller's map is left alone). */
const FROM_BASE_MERGE = `	merged := posthog.Properties{}
	for k, v := range base.Properties {
		merged[k] = v
	}
	for k, v := range props {
		merged[k] = v
	}
	base.Properties = merged`;

function looseEvent(event: CodegenEvent, base: string): string {
  const literal = quote(event.name);
  return `// ${base}Capture builds the ${literal} event. It has no known properties: pass any as maps.
func ${base}Capture(distinctId string, properties ...posthog.Properties) posthog.Capture {
	props := posthog.Properties{}
	for _, p := range properties {
		for k, v := range p {
			props[k] = v
		}
	}
	return posthog.Capture{DistinctId: distinctId, Event: ${literal}, Properties: props}
}

// ${base}CaptureFromBase turns base into the ${literal} event, merging the given properties into its own.
func ${base}CaptureFromBase(base posthog.Capture, properties ...posthog.Properties) posthog.Capture {
	props := posthog.Properties{}
	for _, p := range properties {
		for k, v := range p {
			props[k] = v
		}
	}
	base.Event = ${literal}
${FROM_BASE_MERGE}
	return base
}
`;
}

function typedEvent(event: CodegenEvent, base: string, names: NameAllocator): string {
  const literal = quote(event.name);
  const parameters = new NameAllocator(RESERVED_PARAMETERS);
  const params: Param[] = byName(event.properties).map((property) => ({
    property,
    identifier: parameters.allocate(goParameterBase(property.name)),
    type: goType(property),
  }));
  const required = params.filter((p) => p.property.required);
  const optional = params.filter((p) => !p.property.required);
  const option = `${base}Option`;
  const signature = required.map((p) => `, ${p.identifier} ${p.type}`).join('');
  const setRequired = required.map((p) => `\tprops[${quote(p.property.name)}] = ${p.identifier}\n`).join('');
  const options = optional.map((p) => {
    const fn = names.allocate(`${base}With${goOptionSuffix(p.property.name)}`);
    return `// ${fn} sets the optional property ${quote(p.property.name)}.
func ${fn}(${p.identifier} ${p.type}) ${option} {
	return func(capture *posthog.Capture) {
		capture.Properties[${quote(p.property.name)}] = ${p.identifier}
	}
}
`;
  });
  return `// ${option} sets optional properties of the ${literal} event.
type ${option} func(*posthog.Capture)

${options.map((o) => `${o}\n`).join('')}// ${base}WithExtraProps adds properties the schema does not define.
func ${base}WithExtraProps(props posthog.Properties) ${option} {
	return func(capture *posthog.Capture) {
		for k, v := range props {
			capture.Properties[k] = v
		}
	}
}

// ${base}Capture builds the ${literal} event with its required properties; options add the others.
func ${base}Capture(distinctId string${signature}, options ...${option}) posthog.Capture {
	props := posthog.Properties{}
${setRequired}	capture := posthog.Capture{DistinctId: distinctId, Event: ${literal}, Properties: props}
	for _, option := range options {
		option(&capture)
	}
	return capture
}

// ${base}CaptureFromBase turns base into the ${literal} event with its required properties; options add the others.
func ${base}CaptureFromBase(base posthog.Capture${signature}, options ...${option}) posthog.Capture {
	props := posthog.Properties{}
${setRequired}	base.Event = ${literal}
${FROM_BASE_MERGE}
	for _, option := range options {
		option(&base)
	}
	return base
}
`;
}

function generate({ events, generatedAt }: GeneratorInput): string {
  // Every top-level name: an event takes its base only when all names derived from it are free.
  const names = new NameAllocator();
  const blocks = events.map((event) => {
    const typed = event.properties.length > 0;
    const base = names.allocateBase(goFunctionBase(event.name), (b) =>
      typed ? [`${b}Capture`, `${b}CaptureFromBase`, `${b}Option`, `${b}WithExtraProps`] : [`${b}Capture`, `${b}CaptureFromBase`],
    );
    return typed ? typedEvent(event, base, names) : looseEvent(event, base);
  });
  const usesTime = events.some((event) => event.properties.some((p) => goType(p) === 'time.Time'));
  // No events, nothing uses posthog-go: an unused import would not compile.
  const imports =
    events.length === 0
      ? ''
      : usesTime
        ? 'import (\n\t"time"\n\n\t"github.com/posthog/posthog-go"\n)\n\n'
        : 'import (\n\t"github.com/posthog/posthog-go"\n)\n\n';
  return `// Code generated by Bellwether - DO NOT EDIT.
// Generated at: ${generatedAt}
// Generator version: ${GOLANG_VERSION}
//
// Type-safe builders of posthog-go Capture messages for the project's events: XCapture takes the
// event's required properties as arguments, XWith... options set optional ones.
//
// If this file does not compile: regenerate it after changing the event definitions, and check
// that github.com/posthog/posthog-go is in your go.mod.

package typed

${imports}${blocks.map((block) => `${block}\n`).join('')}// USAGE GUIDE
//
//	client, _ := posthog.NewWithConfig("<project token>", posthog.Config{Endpoint: "<your Bellwether URL>"})
//	defer client.Close()
//
//	// An event with properties: required ones as arguments, optional ones as options.
//	client.Enqueue(typed.SomeEventCapture("user-1", requiredValue, typed.SomeEventWithOptionalProp(value)))
//
//	// An event without known properties.
//	client.Enqueue(typed.OtherEventCapture("user-1", posthog.Properties{"anything": true}))
//
// Regenerate this file whenever the event definitions change.
`;
}

export const golangGenerator: Generator = { version: GOLANG_VERSION, generate };
