import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notFound } from '../errors.ts';
import { unstorableProblem, unstorableTextError } from './storable-text.ts';

/**
 * Query strings and path segments can carry a NUL (`%00`), which PostgreSQL refuses in text: a
 * query parameter holding one is a 400 naming it, a path segment holding one names nothing (404).
 * `search` is the exception: its NULs are dropped, as PostHog drops them from search terms.
 * Runs first on every request, before authentication reads a token from the query.
 */
export function installQueryTextCheck(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      checkQueryText(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
}

function checkQueryText(request: FastifyRequest): void {
  const params = request.params as Record<string, unknown> | undefined;
  if (params) {
    for (const value of Object.values(params)) {
      if (typeof value === 'string' && unstorableProblem(value)) throw notFound();
    }
  }
  const query = request.query as Record<string, unknown> | undefined;
  if (!query) return;
  for (const [name, value] of Object.entries(query)) {
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) {
      if (typeof item !== 'string') continue;
      const problem = unstorableProblem(item);
      if (!problem) continue;
      if (name === 'search' && problem.kind === 'nul') {
        query[name] = Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v.replace(/\u0000/g, '') : v)) : item.replace(/\u0000/g, '');
        break;
      }
      throw unstorableTextError({ path: [name], problem });
    }
  }
}
