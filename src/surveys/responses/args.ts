/**
 * The arguments of stats and responses_count (seed: date_from, date_to, exclude_archived,
 * survey_ids): from the query string, and from a JSON body when one is sent, a key
 * in the body winning over the same key in the query. Fastify never reads the body of a GET, so
 * these routes read it themselves.
 */
import type { FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { canonicalUuid } from '../../events/ingestion/uuid.ts';
import { ApiError, parseError, validationError } from '../../kernel/errors.ts';
import { isQueryTrue } from '../../kernel/http/drf-boolean.ts';

/** A GET's body is a few arguments; anything larger is refused. */
const MAX_BODY_BYTES = 64 * 1024;

export type RawArgs = Record<string, unknown>;

async function readText(request: FastifyRequest): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, 'invalid_request', 'payload_too_large', 'Request body is too large.');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function hasBody(request: FastifyRequest): boolean {
  const { headers } = request.raw;
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}

/** The JSON object sent as the body of a GET, or {} (no body, an empty one, or one that is not JSON by its content type). */
async function bodyArgs(request: FastifyRequest): Promise<RawArgs> {
  if (request.method !== 'GET' || !hasBody(request)) return {};
  const type = request.headers['content-type'];
  if (type !== undefined && !/^application\/(.+\+)?json\b/i.test(type)) return {};
  const text = await readText(request);
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch (error) {
    throw parseError(`JSON parse error - ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw validationError('Invalid data. Expected a dictionary, but got a list or a value.', null, 'invalid');
  }
  return parsed as RawArgs;
}

/** Query string and body merged (the body's keys win). */
export async function requestArgs(request: FastifyRequest): Promise<RawArgs> {
  const query = (request.query ?? {}) as RawArgs;
  return { ...query, ...(await bodyArgs(request)) };
}

/** `exclude_archived`: true for a boolean true or any yes spelling ("true" in any case, "1", "yes", "on"). */
export const excludeArchivedArg = (value: unknown): boolean => isQueryTrue(value);

/**
 * `survey_ids`: comma-separated (or, in a body, a list), trimmed, empty entries dropped; no entry
 * means every survey (undefined). An entry that is not a UUID is a 400.
 */
export function surveyIdsArg(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  let entries: unknown[];
  if (typeof value === 'string') entries = value.split(',');
  else if (Array.isArray(value)) entries = value;
  else throw validationError('Expected a comma-separated list of survey ids.', 'survey_ids', 'invalid');
  const ids: string[] = [];
  for (const entry of entries) {
    if (typeof entry !== 'string') throw validationError('Expected a comma-separated list of survey ids.', 'survey_ids', 'invalid');
    const trimmed = entry.trim();
    if (trimmed === '') continue;
    const id = canonicalUuid(trimmed);
    if (id === null) throw validationError(`“${trimmed}” is not a valid UUID.`, 'survey_ids', 'invalid');
    ids.push(id);
  }
  return ids.length === 0 ? undefined : [...new Set(ids)];
}
