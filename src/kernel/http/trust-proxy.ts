import { isIP } from 'node:net';

/**
 * Which proxies in front of the service are believed (Fastify's `trustProxy`): their addresses
 * and CIDRs, or how many hops of proxies there are. The client address is then the right-most
 * `X-Forwarded-For` entry that is not a trusted proxy (or the entry that many hops from the
 * right): an appending proxy (nginx's `$proxy_add_x_forwarded_for`) cannot be fooled by what a
 * client wrote into the header. `true` believes every hop, so the address is the left-most entry,
 * which the client chose unless the proxy replaces the header; false believes none.
 */
export type TrustProxy = boolean | number | string[];

/** proxy-addr's names for address ranges, accepted beside addresses and CIDRs. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(part: string): boolean {
  if (NAMED_RANGES.has(part)) return true;
  const [address, prefix, ...rest] = part.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/** TRUST_PROXY: unset/`false` (none), `true` (every hop), a hop count (`1`, `2`…), or addresses/CIDRs, comma-separated. */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = raw?.trim() ?? '';
  if (value === '' || value.toLowerCase() === 'false' || value === '0') return false;
  if (value.toLowerCase() === 'true') return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 32) throw new Error(`TRUST_PROXY: a hop count is at most 32, got "${raw}"`);
    return hops;
  }
  const parts = value.split(',').map((part) => part.trim()).filter((part) => part !== '');
  const bad = parts.find((part) => !isAddressOrRange(part));
  if (bad !== undefined) {
    throw new Error(`TRUST_PROXY must be true, false, a hop count, or the proxies' addresses/CIDRs (comma-separated); "${bad}" is none of these`);
  }
  return parts;
}

/**
 * Fastify's `trustProxy` for it. A hop count n trusts the socket's peer and the n - 1 right-most
 * `X-Forwarded-For` entries: the client is the n-th entry from the right.
 */
export function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

/** What to warn about at start: `true` lets any client choose the address the sign-in throttle counts. */
export function trustProxyWarning(trust: TrustProxy): string | null {
  if (trust !== true) return null;
  return (
    'TRUST_PROXY=true believes the left-most X-Forwarded-For address, which a client writes itself unless the proxy replaces ' +
    'the header: per-address sign-in throttling can then be escaped. Set TRUST_PROXY to the proxy\'s address (or a hop count) instead.'
  );
}
