/** The project token where PostHog's SDKs put it (see TokenCarrier). */
import type { FastifyRequest } from 'fastify';
import { bearerToken } from '../kernel/http/bearer.ts';
import type { TokenCarrier } from '../kernel/http/public-route.ts';
import { readPublicBody } from './body.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A token is a non-blank string; surrounding white space is dropped, as PostHog drops it. */
function tokenText(value: unknown): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first !== 'string') return null;
  const trimmed = first.trim();
  return trimmed === '' ? null : trimmed;
}

function tokenOf(holder: unknown): string | null {
  return isObject(holder) ? (tokenText(holder.token) ?? tokenText(holder.api_key)) : null;
}

/** The first event of `{batch: [...]}`, of `[...]`, or the one event that is the whole body. */
function firstEvent(payload: unknown): unknown {
  if (Array.isArray(payload)) return payload[0];
  if (isObject(payload) && Array.isArray(payload.batch)) return payload.batch[0];
  return payload;
}

async function fromCarrier(request: FastifyRequest, carrier: TokenCarrier): Promise<string | null> {
  switch (carrier) {
    case 'header':
      return tokenText(bearerToken(request.headers.authorization));
    case 'query':
      return tokenOf(request.query);
    case 'body':
      return tokenOf((await readPublicBody(request)).payload);
    case 'event': {
      const event = firstEvent((await readPublicBody(request)).payload);
      return isObject(event) ? (tokenOf(event.properties) ?? tokenOf(event)) : null;
    }
  }
}

/** The first token found in `carriers`, in their order, or null. */
export async function readProjectToken(request: FastifyRequest, carriers: readonly TokenCarrier[]): Promise<string | null> {
  for (const carrier of carriers) {
    const token = await fromCarrier(request, carrier);
    if (token !== null) return token;
  }
  return null;
}
