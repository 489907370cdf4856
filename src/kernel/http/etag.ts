/** Entity tags for bodies rendered once and served many times (SDK definitions, OFREP, the survey feed). */
import { createHash } from 'node:crypto';
import { gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EarlyAnswer } from './early-answer.ts';
import { JSON_CONTENT_TYPE } from './send-json.ts';
/** Smaller bodies are sent as they are: gzip would save a few bytes for its own work. */
const MIN_GZIP_BYTES = 1024;

/** `W/"<hash of the body>"`. */
export function weakEtag(body: string | Buffer): string {
  return `W/"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
}

/** Whether an `If-None-Match` header names this entity tag (weak comparison; `*` matches anything). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//i, '');
  const wanted = opaque(etag);
  return header.split(',').some((candidate) => candidate.trim() === '*' || opaque(candidate) === wanted);
}

/** Whether an `Accept-Encoding` header takes gzip (any `gzip` token not refused with `q=0`). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!text.includes('gzip')) return false;
  return text.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding.trim() !== 'gzip') return false;
    const q = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * A body rendered once and served many times: its UTF-8 bytes and ETag, and its gzip made once, off
 * the event loop (zlib's thread pool), on the first request that accepts it; requests arriving
 * before it is ready get the plain bytes.
 */
export class StoredBody {
  readonly bytes: Buffer;
  readonly etag: string;
  private gzipped: Buffer | null = null;
  private compressing = false;

  constructor(text: string) {
    this.bytes = Buffer.from(text, 'utf8');
    this.etag = weakEtag(this.bytes);
  }

  get compressible(): boolean {
    return this.bytes.length >= MIN_GZIP_BYTES;
  }

  /** The gzip of the bytes when made; starts making it on the first call. */
  gzip(): Buffer | null {
    if (this.gzipped === null && !this.compressing && this.compressible) {
      this.compressing = true;
      gzip(this.bytes, (error, result) => {
        if (error) this.compressing = false;
        else this.gzipped = result;
      });
    }
    return this.gzipped;
  }
}

/** An answer with the headers it carries, made without a Fastify reply (kernel/http/raw-answers.ts). */
export interface RevalidatedAnswer {
  status: number;
  headers: Record<string, string>;
  /** null: no body (a 304). */
  payload: Buffer | string | null;
}

/**
 * The answer for an already serialised body with its ETag, for clients to revalidate every time
 * (`private, must-revalidate`), or a 304 when `If-None-Match` names that tag. A `StoredBody` goes
 * gzipped to clients that accept gzip (once it is compressed).
 */
export function revalidation(
  ifNoneMatch: string | string[] | undefined,
  acceptEncoding: string | string[] | undefined,
  body: string | StoredBody,
  etag: string = typeof body === 'string' ? weakEtag(body) : body.etag,
  contentType: string = JSON_CONTENT_TYPE,
): RevalidatedAnswer {
  const headers: Record<string, string> = { etag, 'cache-control': 'private, must-revalidate' };
  const stored = typeof body === 'string' ? null : body;
  if (stored?.compressible) headers.vary = 'accept-encoding';
  if (etagMatches(typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined, etag)) return { status: 304, headers, payload: null };
  headers['content-type'] = contentType;
  if (stored === null) return { status: 200, headers, payload: body as string };
  const gzipped = stored.compressible && acceptsGzip(acceptEncoding) ? stored.gzip() : null;
  if (gzipped !== null) {
    headers['content-encoding'] = 'gzip';
    return { status: 200, headers, payload: gzipped };
  }
  return { status: 200, headers, payload: stored.bytes };
}

/** `revalidation`'s answer with its headers set on the reply. */
export function revalidated(
  request: FastifyRequest,
  reply: FastifyReply,
  body: string | StoredBody,
  etag?: string,
  contentType?: string,
): EarlyAnswer {
  const answer = revalidation(request.headers['if-none-match'], request.headers['accept-encoding'], body, etag, contentType);
  reply.headers(answer.headers);
  return { status: answer.status, payload: answer.payload };
}

/**
 * Sends `revalidated`'s answer. The route's response schema still documents the shape; the
 * serializer is bypassed.
 */
export function sendRevalidated(
  request: FastifyRequest,
  reply: FastifyReply,
  body: string | StoredBody,
  etag?: string,
  contentType?: string,
): FastifyReply {
  const answer = revalidated(request, reply, body, etag, contentType);
  reply.code(answer.status);
  return answer.payload === null ? reply.send() : reply.send(answer.payload);
}
