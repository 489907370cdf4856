import type { ErrorObject } from 'ajv';
import { ApiError, validationError } from '../errors.ts';
import { pythonStr, pythonTypeName } from './python-types.ts';

function attrOf(error: ErrorObject): string | null {
  const segments = error.instancePath.split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') segments.push(String((error.params as { missingProperty: string }).missingProperty));
  return segments.length ? segments.join('__') : null;
}

function firstType(error: ErrorObject): string {
  const raw = (error.params as { type: string | string[] }).type;
  const list = Array.isArray(raw) ? raw : String(raw).split(',');
  return list.find((t) => t !== 'null') ?? list[0];
}

/** Ajv's first error in DRF's words, so clients written for PostHog read the same messages. */
export function ajvErrorToApiError(error: ErrorObject): ApiError {
  const attr = attrOf(error);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return validationError('This field is required.', attr, 'required');
    case 'type': {
      const expected = firstType(error);
      if (error.data === null) return validationError('This field may not be null.', attr, 'null');
      switch (expected) {
        case 'string':
          return validationError('Not a valid string.', attr, 'invalid_input');
        case 'integer':
          return validationError('A valid integer is required.', attr, 'invalid_input');
        case 'number':
          return validationError('A valid number is required.', attr, 'invalid_input');
        case 'boolean':
          return validationError('Must be a valid boolean.', attr, 'invalid_input');
        case 'array':
          return validationError(`Expected a list of items but got type "${pythonTypeName(error.data)}".`, attr, 'not_a_list');
        case 'object':
          return validationError(`Expected a dictionary of items but got type "${pythonTypeName(error.data)}".`, attr, 'not_a_dict');
        default:
          return validationError(`Expected ${expected}.`, attr, 'invalid_input');
      }
    }
    case 'maxLength':
      return validationError(`Ensure this field has no more than ${params.limit} characters.`, attr, 'max_length');
    case 'minLength':
      return validationError('This field may not be blank.', attr, 'blank');
    case 'maximum':
      return validationError(`Ensure this value is less than or equal to ${params.limit}.`, attr, 'max_value');
    case 'minimum':
      return validationError(`Ensure this value is greater than or equal to ${params.limit}.`, attr, 'min_value');
    case 'maxItems':
      return validationError(`Ensure this field has no more than ${params.limit} elements.`, attr, 'max_length');
    case 'enum':
      return validationError(`"${pythonStr(error.data)}" is not a valid choice.`, attr, 'invalid_choice');
    case 'format':
      if (params.format === 'date-time') {
        return validationError(
          'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
          attr,
          'invalid_input',
        );
      }
      if (params.format === 'uuid') return validationError('Must be a valid UUID.', attr, 'invalid_input');
      return validationError(`Enter a valid ${String(params.format)}.`, attr, 'invalid_input');
    default:
      return validationError(error.message ?? 'Invalid input.', attr, 'invalid_input');
  }
}
