import { ApiError, validationError } from '../../kernel/errors.ts';

/** The body could not be read: not JSON, broken gzip, bad base64, bad form encoding. */
export const unreadableBody = (detail: string) => new ApiError(400, 'invalid_request', 'parse_error', detail);

export const tooLarge = (detail: string, attr: string | null = null) =>
  new ApiError(413, 'invalid_request', 'request_too_large', detail, attr);

export const tokenMissing = () =>
  new ApiError(
    401,
    'authentication_error',
    'not_authenticated',
    'API key is missing: send the project token (phc_…) as "api_key" or "token" in the body, as the "token" query parameter, or as properties.token of the first event.',
  );

export const tokenUnknown = () =>
  new ApiError(
    401,
    'authentication_error',
    'authentication_failed',
    'Project API key invalid: no project has this token. Use the project token (phc_…) from the project settings.',
  );

/** A field of the body that is wrong; `path` is the field's place in the body (`batch__3__event`). */
export const invalidField = (detail: string, path: (string | number)[], code = 'invalid_input') =>
  validationError(detail, path.length ? path.join('__') : null, code);

export const lz64Refused = () => unreadableBody('compression=lz64 is not supported: send gzip-js, base64 or plain JSON.');
