import { gunzip, inflate, type InputType, type ZlibOptions } from 'node:zlib';
import secureJson from 'secure-json-parse';
import { ApiError, nestedTooDeep } from '../kernel/errors.ts';
import { nestedDeeperThan } from '../kernel/http/json-depth.ts';
import { MAY_HOLD_UNSTORABLE_ESCAPE } from '../kernel/http/storable-text.ts';
import { lz64Refused, tooLarge, unreadableBody } from './errors.ts';
import { PUBLIC_BODY_LIMITS } from './limits.ts';

/** What the edge knows of a request before its body is understood. */
export interface RawBody {
  body: Buffer;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  /** `compression` from the query string (posthog-js: `gzip-js`, `base64`). */
  compression: string | undefined;
}

export interface DecodedBody {
  payload: unknown;
  /**
   * The JSON text held escapes that PostgreSQL cannot store as they are (`\u0000`, UTF-16
   * surrogates): the strings of the payload must be cleaned before they reach the database.
   */
  needsSanitizing: boolean;
  /** Characters of the JSON text the payload was parsed from. */
  jsonLength: number;
}

const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;

const isGzip = (data: Buffer) => data.length >= 2 && data[0] === GZIP_MAGIC_0 && data[1] === GZIP_MAGIC_1;

type Inflater = (data: InputType, options: ZlibOptions, callback: (error: Error | null, result: Buffer) => void) => void;

/** Decompresses on the thread pool and stops once the output passes the decoded-size cap. */
function decompress(inflater: Inflater, data: Buffer, what: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // 64 KB output chunks: with the default 16 KB, inflating 20 MB takes several times longer.
    inflater(data, { maxOutputLength: PUBLIC_BODY_LIMITS.maxDecodedBytes, chunkSize: 64 * 1024 }, (error, result) => {
      if (!error) return resolve(result);
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
        return reject(
          tooLarge(`The decompressed request body is larger than ${PUBLIC_BODY_LIMITS.maxDecodedBytes} bytes.`),
        );
      }
      reject(unreadableBody(`The request body is not valid ${what} data: ${error.message}.`));
    });
  });
}

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** base64 (standard or URL-safe alphabet) with line breaks; `+` turned into a space by form decoding is undone. */
function base64Text(text: string): string | null {
  const compact = text.trim().replace(/[\r\n\t]/g, '').replace(/ /g, '+');
  return compact.length > 0 && compact.length % 4 !== 1 && BASE64.test(compact) ? compact : null;
}

function checkDecodedSize(data: Buffer | string): void {
  const size = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
  if (size > PUBLIC_BODY_LIMITS.maxDecodedBytes) {
    throw tooLarge(`The decoded request body is larger than ${PUBLIC_BODY_LIMITS.maxDecodedBytes} bytes.`);
  }
}

const looksLikeJson = (text: string) => /^\s*[[{"]/.test(text);

function parseJson(text: string): DecodedBody {
  const trimmed = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (trimmed.trim() === '') throw unreadableBody('The request body is empty: send an event or a batch of events.');
  if (nestedDeeperThan(trimmed, PUBLIC_BODY_LIMITS.maxJsonDepth)) {
    throw nestedTooDeep(PUBLIC_BODY_LIMITS.maxJsonDepth, '; flatten the event properties');
  }
  try {
    const payload = secureJson.parse(trimmed, undefined, { protoAction: 'remove', constructorAction: 'remove' });
    return { payload, needsSanitizing: MAY_HOLD_UNSTORABLE_ESCAPE.test(trimmed), jsonLength: trimmed.length };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw unreadableBody(`JSON parse error - ${(error as Error).message}`);
  }
}

/** JSON text, or base64 of JSON (or of gzipped JSON): what a form's `data` field or a bare body holds. */
async function decodeText(text: string): Promise<DecodedBody> {
  if (looksLikeJson(text)) return parseJson(text);
  const base64 = base64Text(text);
  if (base64 === null) {
    if (text.trim() === '') return parseJson(text);
    throw unreadableBody('The request body is neither JSON nor base64-encoded JSON (nor gzip of either).');
  }
  let data: Buffer = Buffer.from(base64, 'base64');
  if (isGzip(data)) data = await decompress(gunzip, data, 'gzip');
  checkDecodedSize(data);
  const decoded = data.toString('utf8');
  if (!looksLikeJson(decoded)) throw unreadableBody('The base64-decoded request body is not JSON.');
  return parseJson(decoded);
}

function isFormEncoded(contentType: string | undefined, text: string): boolean {
  if (contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded')) return true;
  return /^data=/.test(text);
}

/**
 * The body in any form the PostHog SDKs send: JSON; gzip (`Content-Encoding: gzip`, posthog-js's
 * `?compression=gzip-js`, or simply a gzip stream); base64 (`?compression=base64`); a form with
 * `data=<json or base64>` and maybe `compression=`; text/plain holding JSON (sendBeacon).
 */
export async function decodeBody(raw: RawBody): Promise<DecodedBody> {
  let data: Buffer = raw.body;
  const encoding = raw.contentEncoding?.trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') {
    data = await decompress(gunzip, data, 'gzip');
  } else if (encoding === 'deflate') {
    data = await decompress(inflate, data, 'deflate');
  } else if (encoding && encoding !== 'identity') {
    throw new ApiError(415, 'invalid_request', 'unsupported_media_type', `Unsupported Content-Encoding "${encoding}": send gzip, deflate or none.`);
  } else if (isGzip(data)) {
    // posthog-js's gzip-js (text/plain, no Content-Encoding), or any client that gzips quietly.
    data = await decompress(gunzip, data, 'gzip');
  }
  checkDecodedSize(data);

  // gzip and base64 are recognised from the bytes themselves, whatever `compression` claims
  // (posthog-js drops gzip and keeps going when compressing fails); lz64 alone is refused.
  if (raw.compression?.toLowerCase() === 'lz64') throw lz64Refused();
  const text = data.toString('utf8');
  if (isFormEncoded(raw.contentType, text)) {
    const form = new URLSearchParams(text);
    const field = form.get('data');
    if (field === null) throw unreadableBody('The form body has no "data" field holding the events.');
    if (form.get('compression')?.toLowerCase() === 'lz64') throw lz64Refused();
    return decodeText(field);
  }
  return decodeText(text);
}
