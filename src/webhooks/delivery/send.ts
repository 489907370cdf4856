/**
 * One HTTP attempt: a POST to the destination's pinned address (the URL's host still names it for
 * TLS and the Host header), no redirects followed, at most `timeoutMs` in all, at most 1 KB of the
 * answer kept.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Destination } from './destination.ts';

export const ATTEMPT_TIMEOUT_MS = 10_000;
export const KEPT_RESPONSE_BYTES = 1024;

export interface AttemptResult {
  /** The HTTP status, null when none came (refused, timed out, reset). */
  status: number | null;
  /** The first 1 KB of the answer's body. */
  body: string;
  durationMs: number;
  /** What went wrong, null on a 2xx. */
  error: string | null;
}

function pinnedLookup(destination: Destination): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) {
      (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address: destination.address, family: destination.family },
      ]);
    } else {
      callback(null, destination.address, destination.family);
    }
  };
}

export function postOnce(destination: Destination, headers: Record<string, string>, body: string, timeoutMs = ATTEMPT_TIMEOUT_MS): Promise<AttemptResult> {
  const started = performance.now();
  const { url } = destination;
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (status: number | null, text: string, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, body: text, durationMs: Math.round(performance.now() - started), error });
    };
    const request = transport.request(
      url,
      {
        method: 'POST',
        agent: false,
        lookup: pinnedLookup(destination),
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Bellwether-Webhooks/1',
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let kept = 0;
        const done = () => {
          const text = Buffer.concat(chunks).subarray(0, KEPT_RESPONSE_BYTES).toString('utf8');
          const error = status >= 200 && status < 300 ? null : status >= 300 && status < 400 ? `redirect (${status}) not followed` : `HTTP ${status}`;
          finish(status, text, error);
          response.destroy();
        };
        response.on('data', (chunk: Buffer) => {
          if (kept < KEPT_RESPONSE_BYTES) chunks.push(chunk);
          kept += chunk.length;
          if (kept >= KEPT_RESPONSE_BYTES) done();
        });
        response.on('end', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      finish(null, '', `timed out after ${timeoutMs / 1000} s`);
      request.destroy();
    }, timeoutMs);
    request.on('error', (error) => finish(null, '', error.message.slice(0, 200)));
    request.end(body);
  });
}
