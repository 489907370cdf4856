import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { parseError } from '../errors.ts';

/**
 * JSON bodies: an empty body reads as `{}` (actions such as has_active_dependents are often
 * posted with no body); anything that is not JSON is a 400 parse_error, never a 500.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  // Only JSON is read by default; a plain-text body is a 415, not a string handed to a route.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(/^application\/(.+\+)?json$/, { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, {});
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }));
    } catch (error) {
      done(parseError(`JSON parse error - ${(error as Error).message}`), undefined);
    }
  });
}

/** A POST or PATCH sent with no body at all reads as `{}`, as an empty JSON body does. */
export function installEmptyBodyDefault(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && (request.method === 'POST' || request.method === 'PATCH' || request.method === 'PUT')) {
      request.body = {};
    }
  });
}
