import { validationError } from '../../kernel/errors.ts';

/** A field of the body that is wrong; `path` is the field's place in the body (`batch__3__event`). */
export const invalidField = (detail: string, path: (string | number)[], code = 'invalid_input') =>
  validationError(detail, path.length ? path.join('__') : null, code);
