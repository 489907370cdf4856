import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { addDrfBooleanKeyword, withDrfBooleans } from './drf-boolean.ts';

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
  addDrfBooleanKeyword(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const queryAjv = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
  // Booleans are read as DRF reads them, in bodies and query strings alike ("true", "False", "1", "on" …).
  return ajv.compile(withDrfBooleans(schema as object)) as ValidateFunction;
};
