/** Standard Webhooks signing: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per live secret. */
import { createHmac } from 'node:crypto';
import { signingKey } from '../secrets.ts';

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function signature(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', signingKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The headers for one attempt; every secret given signs (after a rotation, the new and the previous). */
export function signedHeaders(secrets: readonly string[], id: string, timestampSeconds: number, body: string): SignedHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((secret) => signature(secret, id, timestampSeconds, body)).join(' '),
  };
}
