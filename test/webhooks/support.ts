/** A local receiver that verifies every delivery with the `standardwebhooks` package, and app helpers. */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { TestApp } from '../helpers/app.ts';
import { startTestApp } from '../helpers/app.ts';

export type Json = Record<string, any>;

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: Json;
  /** Whether `standardwebhooks` accepted it with the receiver's secret. */
  verified: boolean;
  verifyError: string | null;
  /** The sender's end of the connection (its port), which tells which process sent it. */
  senderPort: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The secret deliveries are checked against (set it from the create answer). */
  secret: string | null;
  /** The status the next requests get (default 200), or a delay before answering. */
  answer: { status: number; delayMs: number; body: string };
  /** The most requests it was answering at once. */
  maxConcurrent: number;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    received: [],
    secret: null,
    answer: { status: 200, delayMs: 0, body: 'ok' },
    maxConcurrent: 0,
    close: async () => {},
  };
  let concurrent = 0;
  const server = http.createServer((request, response) => {
    concurrent++;
    receiver.maxConcurrent = Math.max(receiver.maxConcurrent, concurrent);
    response.on('finish', () => concurrent--);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      let verifyError: string | null = null;
      try {
        if (!receiver.secret) throw new Error('no secret set');
        new Webhook(receiver.secret).verify(body, request.headers as Record<string, string>);
        verified = true;
      } catch (error) {
        verifyError = (error as Error).message;
      }
      receiver.received.push({ headers: request.headers, body, json: JSON.parse(body), verified, verifyError, senderPort: request.socket.remotePort ?? 0 });
      const { status, delayMs, body: answer } = receiver.answer;
      setTimeout(() => response.writeHead(status, { 'content-type': 'text/plain' }).end(answer), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** A test app whose webhooks may reach 127.0.0.1 over http; the worker runs only when told (`runOnce`). */
export function startWebhookApp(options: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  return startTestApp({
    webhookAllowedHosts: new Set(['127.0.0.1']),
    siteUrl: 'https://bellwether.example.com',
    ...options,
    webhookDelivery: { intervalMs: 0, timeoutMs: 2000, ...options.webhookDelivery },
  });
}

export const webhooksUrl = (projectId: number | string = 1) => `/api/projects/${projectId}/webhooks/`;

export async function createWebhook(t: TestApp, body: Json): Promise<Json> {
  const response = await t.request({ method: 'POST', url: webhooksUrl(t.projectId), payload: body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

export async function deliveries(t: TestApp, webhookId: string): Promise<Json[]> {
  const response = await t.request({ method: 'GET', url: `${webhooksUrl(t.projectId)}${webhookId}/deliveries/` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().results;
}

export async function createFlag(t: TestApp, key: string): Promise<Json> {
  const response = await t.request({
    method: 'POST',
    url: `/api/projects/${t.projectId}/feature_flags/`,
    payload: { key, name: key, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}
