/**
 * Route schemas compiled on first use. Compiling every route's validators (Ajv) and response
 * serializers (fast-json-stringify) when the app starts took 2.5 s of a worker's 4.5 s start-up
 * (CPU profile, 2026-11-27): most routes are never called in a process's first minutes, many never.
 * Each compiler here returns a function that compiles its schema when first called, then uses the
 * compiled one; `compileAll` compiles every one made so far (the test that every route's schemas
 * compile calls it, so a broken schema still fails a test rather than a request).
 */
import Fastify, { type FastifyInstance, type FastifySchemaValidationError, type FastifySerializerCompiler, type RouteOptions } from 'fastify';

const pending = new Set<() => unknown>();

/** `compile` run once, when first needed (or by `compileAll`). */
function once<T>(compile: () => T): () => T {
  let compiled: T | undefined;
  const get = (): T => {
    if (compiled === undefined) {
      compiled = compile();
      pending.delete(get);
    }
    return compiled;
  };
  pending.add(get);
  return get;
}

/** Compiles every schema still waiting for its first use; throws the first compiler's error. */
export function compileAll(): number {
  const waiting = [...pending];
  for (const compile of waiting) compile();
  return waiting.length;
}

export type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };

/** A validator compiled on its first call (Fastify reads `errors` after a false). */
export function lazyValidator(compile: () => Validate): Validate {
  const compiled = once(compile);
  const validate: Validate = (data) => {
    const real = compiled();
    const valid = real(data);
    validate.errors = real.errors;
    return valid;
  };
  validate.errors = null;
  return validate;
}

/**
 * Fastify's own response serializer compiler (fast-json-stringify, as Fastify configures it),
 * taken from a throw-away instance: the service adds no shared schemas, so it is the one every
 * route would get.
 */
async function defaultSerializerCompiler(): Promise<FastifySerializerCompiler<unknown>> {
  const probe = Fastify();
  probe.get('/', { schema: { response: { 200: { type: 'null' } } } }, async () => null);
  await probe.ready();
  const compiler = probe.serializerCompiler as FastifySerializerCompiler<unknown> | undefined;
  await probe.close();
  if (!compiler) throw new Error('Fastify gave no serializer compiler');
  return compiler;
}

/** Every route registered after this (in `app` and below) serializes through a lazily compiled serializer. */
export async function installLazySerializers(app: FastifyInstance): Promise<void> {
  const compiler = await defaultSerializerCompiler();
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.serializerCompiler || !route.schema?.response) return;
    route.serializerCompiler = (routeSchema) => {
      const serialize = once(() => compiler(routeSchema));
      return (data) => serialize()(data);
    };
  });
}
