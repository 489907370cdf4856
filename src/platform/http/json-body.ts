import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { parseError } from '../errors.ts';

/**
 * JSON bodies: an empty body reads as `{}` (actions such as has_active_dependents are often
 * posted with no body); anything that is not JSON is a 400 parse_error, never a 500.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
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
