import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * One area of the service as a Fastify plugin: `app.ts` registers it in one line. The plugin is
 * not encapsulated, so what it decorates (a cache other areas use) and its `onReady`/`onClose`
 * hooks belong to the app; its routes are registered inside it, each in a context of its own.
 * `dependencies` names the areas whose decorations it uses: Fastify refuses to start when one of
 * them was not registered before it.
 */
export function defineArea<Options extends object = Record<never, never>>(
  name: string,
  dependencies: readonly string[],
  register: (app: FastifyInstance, options: Options) => Promise<void>,
) {
  return fp<Options>(register, { name, fastify: '5.x', dependencies: [...dependencies] });
}
