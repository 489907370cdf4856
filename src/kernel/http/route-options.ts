import type { FastifyContextConfig, FastifySchema } from 'fastify';

/** The scope a personal API key needs for a route (the auth hook declares it on the route config). */
type Scope = NonNullable<FastifyContextConfig['scope']>;

/**
 * The options block every route of an area repeats: its `config` and its schema under the area's
 * tags and a summary. The schema's own type is kept, so handlers stay typed by it.
 * `shared` is config every route of the file has (`account: true` for the caller's own account).
 */
export function routeOptions(tags: string[], shared: FastifyContextConfig = {}) {
  return {
    tags,
    /** An authenticated route: the scope a key needs (none: any valid key). */
    scoped<S extends FastifySchema>(scope: Scope | undefined, summary: string, schema: S) {
      const config: FastifyContextConfig = scope === undefined ? { ...shared } : { scope, ...shared };
      return { config, schema: { tags, summary, ...schema } };
    },
    /** A public route that needs no credentials at all (sign-in, sign-up); the document says so. */
    open<S extends FastifySchema>(summary: string, schema: S) {
      return { config: { ...shared, public: true }, schema: { tags, security: [{}], summary, ...schema } };
    },
  };
}
