/**
 * One HTTP attempt: a POST to the destination's pinned address (the URL's host still names it for
 * TLS and the Host header), no redirects followed, at most `timeoutMs` in all, at most 1 KB of the
 * answer kept. Connections are kept alive per origin and checked address (a busy endpoint is not a
 * new TCP and TLS handshake per message; an address checked again and found changed gets its own
 * connections); an idle one closes after 4 s. A request on a kept connection that the receiver had
 * just closed (reset before any answer) is sent once more on a new connection, within the same
 * time limit (almost always nothing reached the receiver; if it did, the `webhook-id` tells).
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { BoundedCache } from '../../kernel/bounded-cache.ts';
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

/** Below Node's default server keep-alive (5 s), so a receiver rarely closes a connection as it is reused. */
const IDLE_CONNECTION_MS = 4000;
const agents = new BoundedCache<http.Agent>({ max: 1000, ttlMs: 10 * 60 * 1000 });

function agentFor(destination: Destination): http.Agent {
  const key = `${destination.url.protocol}//${destination.url.host}@${destination.address}`;
  const kept = agents.get(key)?.value;
  if (kept) return kept;
  const options = { keepAlive: true, timeout: IDLE_CONNECTION_MS, scheduling: 'lifo' as const };
  const agent = destination.url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  agents.set(key, agent);
  return agent;
}

export async function postOnce(destination: Destination, headers: Record<string, string>, body: string, timeoutMs = ATTEMPT_TIMEOUT_MS): Promise<AttemptResult> {
  const started = performance.now();
  const first = await sendOnce(destination, headers, body, timeoutMs, started, agentFor(destination));
  if (first === 'stale connection') return sendOnce(destination, headers, body, timeoutMs, started, false) as Promise<AttemptResult>;
  return first;
}

function sendOnce(
  destination: Destination,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  started: number,
  agent: http.Agent | false,
): Promise<AttemptResult | 'stale connection'> {
  const { url } = destination;
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    let answered = false;
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
        agent,
        lookup: pinnedLookup(destination),
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Bellwether-Webhooks/1',
        },
      },
      (response) => {
        answered = true;
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let kept = 0;
        const done = () => {
          const text = Buffer.concat(chunks).subarray(0, KEPT_RESPONSE_BYTES).toString('utf8');
          const error = status >= 200 && status < 300 ? null : status >= 300 && status < 400 ? `redirect (${status}) not followed` : `HTTP ${status}`;
          finish(status, text, error);
        };
        response.on('data', (chunk: Buffer) => {
          if (kept < KEPT_RESPONSE_BYTES) chunks.push(chunk);
          kept += chunk.length;
          if (kept >= KEPT_RESPONSE_BYTES) {
            // Not read to its end: the connection is not reused.
            done();
            response.destroy();
          }
        });
        response.on('end', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      finish(null, '', `timed out after ${timeoutMs / 1000} s`);
      request.destroy();
    }, Math.max(0, timeoutMs - (performance.now() - started)));
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (request.reusedSocket && !answered && error.code === 'ECONNRESET' && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve('stale connection');
        return;
      }
      finish(null, '', error.message.slice(0, 200));
    });
    request.end(body);
  });
}
