import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { isStorableDateTime } from '../time.ts';
import { addDrfBooleanKeyword, withDrfBooleans } from './drf-boolean.ts';
import { lazyValidator } from './lazy-schemas.ts';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    // Bodies are checked as sent: a string is not an integer, and PATCH gets no defaults.
    coerceTypes: coerce ? 'array' : false,
    useDefaults: coerce,
    removeAdditional: false,
    allErrors: false,
    verbose: true,
    strict: false,
  });
  addFormats(ajv);
  // RFC 3339 allows `23:59:60` and year 0; neither can be stored or answered: the same 400 as any
  // malformed date-time.
  const rfc3339 = ajv.formats['date-time'];
  const shapeOk = typeof rfc3339 === 'object' && 'validate' in rfc3339 && typeof rfc3339.validate === 'function'
    ? (rfc3339.validate as (text: string) => boolean)
    : () => true;
  ajv.addFormat('date-time', { type: 'string', validate: (text: string) => shapeOk(text) && isStorableDateTime(text) });
  addDrfBooleanKeyword(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const queryAjv = makeAjv(true);

/** Compiled on the route's first request (lazy-schemas.ts). */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
  // Booleans are read as DRF reads them, in bodies and query strings alike ("true", "False", "1", "on" …).
  // Rewritten now (a copy): what is compiled later cannot be changed meanwhile.
  const rewritten = withDrfBooleans(schema as object);
  return lazyValidator(() => ajv.compile(rewritten) as ValidateFunction);
};
