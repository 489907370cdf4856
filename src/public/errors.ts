import { ApiError } from '../kernel/errors.ts';

/** The body could not be read: not JSON, broken gzip, bad base64, bad form encoding. */
export const unreadableBody = (detail: string) => new ApiError(400, 'invalid_request', 'parse_error', detail);

export const tooLarge = (detail: string, attr: string | null = null) =>
  new ApiError(413, 'invalid_request', 'request_too_large', detail, attr);

export const lz64Refused = () => unreadableBody('compression=lz64 is not supported: send gzip-js, base64 or plain JSON.');
