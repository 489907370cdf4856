/**
 * What a route declares about its public face, in `config.public`. `true` only skips the session
 * and key checks (health, sign-in, the console's files); an object also hands the route to the
 * public surface (src/public/), which answers for it:
 *
 * - `token`: the project token (`phc_…`) is read from these places, first found wins; none → 401
 *   `not_authenticated`, one naming no project → 401 `authentication_failed` (PostHog's words),
 *   before the handler runs; the handler finds the project in `request.publicProject`;
 * - `cors`: browsers may call it from any origin (the origin is echoed, credentials allowed, ETag
 *   exposed) and `OPTIONS` answers the preflight;
 * - every other method of the path answers 405 with `Allow`, with no authentication.
 */
export interface PublicRoute {
  token?: readonly TokenCarrier[];
  /** An empty body reads as `{}` rather than a 400 (flag evaluation; ingestion needs events). */
  emptyBodyIsObject?: boolean;
  cors?: boolean;
}

/**
 * Where PostHog's SDKs put the project token:
 * - `body`: `token` or `api_key` at the top of the decoded body (posthog-node, `/flags`);
 * - `query`: `?token=` or `?api_key=`;
 * - `event`: the first event's `properties.token` (posthog-js), else its own `token`/`api_key`;
 * - `header`: `Authorization: Bearer <phc_…>` (OFREP providers).
 */
export type TokenCarrier = 'body' | 'query' | 'event' | 'header';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * No session or key authentication here: health, schema, sign-in, and the public surface
     * (see PublicRoute). Public routes never see the session: those that use one read it themselves.
     */
    public?: boolean | PublicRoute;
  }
}
