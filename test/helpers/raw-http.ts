/**
 * One HTTP request over a real socket (not `inject`), for tests that compare what a client really
 * receives: raw-listener answers against Fastify's, early answers against the whole lifecycle.
 */
import http from 'node:http';

export interface RawHttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface RawHttpRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Send the body in two writes without a declared length (transfer-encoding: chunked). */
  chunked?: boolean;
}

export function rawHttp(url: string, options: RawHttpRequest = {}): Promise<RawHttpAnswer> {
  const { method = 'GET', headers = {}, body, chunked = false } = options;
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    request.on('error', reject);
    if (body !== undefined && chunked) {
      request.write(body.slice(0, 5));
      request.end(body.slice(5));
    } else if (body !== undefined) {
      request.setHeader('content-length', Buffer.byteLength(body));
      request.end(body);
    } else {
      request.end();
    }
  });
}
