import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorObject } from 'ajv';
import { QueryTimedOut } from '../../db/bounded-read.ts';
import { isDatabaseUnavailable } from '../../db/unavailable.ts';
import { ApiError, RawErrorResponse, RetryLaterError, databaseUnavailable, notFound, parseError } from '../errors.ts';
import { databaseErrorToApiError } from './database-errors.ts';
import { ajvErrorToApiError } from './validation-errors.ts';

interface ValidationFailure {
  validation?: ErrorObject[];
}

function toApiError(error: FastifyError & ValidationFailure, request: FastifyRequest): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error.validation && error.validation.length > 0) return ajvErrorToApiError(error.validation[0]);
  // Before "unavailable": its cause is a statement timeout, which alone would read as "not now".
  if (error instanceof QueryTimedOut) {
    return new ApiError(503, 'server_error', 'query_timeout', 'The query took too long. Narrow it (dates, filters) and try again.');
  }
  if (isDatabaseUnavailable(error)) {
    // Expected while the database restarts: one line, no stack.
    request.log.warn({ err: { message: error.message, code: error.code } }, 'database unavailable');
    return databaseUnavailable();
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return parseError();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        415,
        'invalid_request',
        'unsupported_media_type',
        `Unsupported media type "${request.headers['content-type'] ?? ''}" in request.`,
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'invalid_request', 'request_too_large', 'Request body is too large.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(400, 'invalid_request', 'parse_error', 'Request body size did not match Content-Length.');
    default:
      break;
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError(error.statusCode, 'invalid_request', 'invalid_request', error.message);
  }
  return null;
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError & ValidationFailure, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof RawErrorResponse) {
      reply.headers(error.headers).code(error.status);
      return error.body === undefined ? reply.send() : reply.send(error.body);
    }
    let apiError: ApiError | null;
    try {
      apiError = toApiError(error, request);
    } catch (renderError) {
      // Rendering must never be what fails: Fastify's raw 500 would reach the client.
      request.log.error({ err: renderError, cause: error }, 'error while rendering an error');
      apiError = null;
    }
    if (!apiError) {
      apiError = databaseErrorToApiError(error);
      if (apiError) request.log.warn({ code: (error as { code?: string }).code, status: apiError.status }, 'database refused a request value');
    }
    if (apiError) {
      if (apiError.status >= 500 && apiError.code !== 'database_unavailable') request.log.error({ err: error }, 'request failed');
      if (apiError instanceof RetryLaterError) reply.header('retry-after', String(apiError.retryAfterSeconds));
      return reply.code(apiError.status).send(apiError.toBody());
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply
      .code(500)
      .send({ type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null });
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(notFound().toBody()));
}
