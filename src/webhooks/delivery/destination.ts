/**
 * Where a webhook may go: an http(s) URL whose every resolved address is public, or a host listed
 * in WEBHOOK_ALLOWED_HOSTS (then also over plain http and to any address). Checked at create and
 * update, and again before every connection, which then goes to the address checked (pinned), so a
 * name that resolves differently a moment later cannot redirect it.
 */
import { lookup } from 'node:dns/promises';
import { isPublicAddress, literalAddress } from './addresses.ts';

export interface Destination {
  url: URL;
  /** The address to connect to and its family. */
  address: string;
  family: 4 | 6;
}

/** A refusal with the sentence the API answers with. */
export class DestinationRefused extends Error {}

const LOOKUP_TIMEOUT_MS = 5_000;
const MAX_URL_LENGTH = 2048;

/** WEBHOOK_ALLOWED_HOSTS: comma-separated host names or addresses, compared without case. */
export function parseAllowedHosts(raw: string | undefined): ReadonlySet<string> {
  return new Set(
    (raw ?? '')
      .split(',')
      .map((host) => bareHost(host.trim().toLowerCase()))
      .filter((host) => host !== ''),
  );
}

function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** The URL's shape: absolute http(s), no credentials, http only to an allowed host. */
export function parseWebhookUrl(raw: string, allowed: ReadonlySet<string>): URL {
  if (raw.length > MAX_URL_LENGTH) throw new DestinationRefused(`Enter a URL of at most ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationRefused('Enter a valid URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new DestinationRefused('Only https URLs can receive webhooks.');
  if (url.username || url.password) throw new DestinationRefused('A webhook URL cannot hold a user name or password.');
  const host = bareHost(url.hostname.toLowerCase());
  if (url.protocol === 'http:' && !allowed.has(host)) throw new DestinationRefused('Only https URLs can receive webhooks (plain http only for hosts in WEBHOOK_ALLOWED_HOSTS).');
  return url;
}

type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DestinationRefused(`The host did not resolve within ${ms / 1000} s.`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Resolves the URL's host and checks every address; answers the one to connect to. */
export async function resolveDestination(url: URL, allowed: ReadonlySet<string>, resolve: Resolver = systemResolver): Promise<Destination> {
  const host = bareHost(url.hostname.toLowerCase());
  const listed = allowed.has(host);
  const literal = literalAddress(url.hostname);
  let addresses: { address: string; family: number }[];
  if (literal !== null) {
    addresses = [{ address: literal, family: literal.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await withTimeout(resolve(host), LOOKUP_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof DestinationRefused) throw error;
      throw new DestinationRefused(`The host "${host}" could not be resolved.`);
    }
  }
  if (addresses.length === 0) throw new DestinationRefused(`The host "${host}" could not be resolved.`);
  if (!listed) {
    const inside = addresses.find((each) => !isPublicAddress(each.address));
    if (inside) throw new DestinationRefused(`The host "${host}" resolves to a loopback, private, link-local or reserved address (${inside.address}); webhooks cannot reach it.`);
  }
  const first = addresses[0];
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
