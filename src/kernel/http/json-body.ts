import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { nestedTooDeep, parseError } from '../errors.ts';
import { MAX_BODY_DEPTH, nestedDeeperThan } from './json-depth.ts';
import { findUnstorableText, MAY_HOLD_UNSTORABLE_ESCAPE, unstorableTextError } from './storable-text.ts';

/**
 * JSON bodies: an empty body reads as `{}` (actions such as has_active_dependents are often
 * posted with no body); anything that is not JSON is a 400 parse_error, never a 500. Before any
 * route sees a body: nesting deeper than MAX_BODY_DEPTH is a 400 (checked on the text, before
 * parsing), and so is a string or key PostgreSQL cannot store (NUL, a lone surrogate), naming
 * the field.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  // Only JSON is read by default; a plain-text body is a 415, not a string handed to a route.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(/^application\/(.+\+)?json$/, { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, {});
    if (nestedDeeperThan(text, MAX_BODY_DEPTH)) return done(nestedTooDeep(MAX_BODY_DEPTH), undefined);
    let value: unknown;
    try {
      value = secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
    } catch (error) {
      return done(parseError(`JSON parse error - ${(error as Error).message}`), undefined);
    }
    if (MAY_HOLD_UNSTORABLE_ESCAPE.test(text)) {
      const found = findUnstorableText(value);
      if (found) return done(unstorableTextError(found), undefined);
    }
    done(null, value);
  });
}

/** A POST or PATCH sent with no body at all reads as `{}`, as an empty JSON body does. */
export function installEmptyBodyDefault(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body === undefined && (request.method === 'POST' || request.method === 'PATCH' || request.method === 'PUT')) {
      request.body = {};
    }
    done();
  });
}
