/**
 * A site on an origin of its own (not the service's, so posthog-js crosses origins as on a real
 * site): the survey page of fixtures/posthog-survey-page.html, its setup given as `?setup=<json>`,
 * and the installed posthog-js bundle, nothing else.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

const BUNDLE = createRequire(import.meta.url).resolve('posthog-js/dist/array.full.js');
const PAGE_TEMPLATE = readFileSync(new URL('../fixtures/posthog-survey-page.html', import.meta.url), 'utf8');

export interface PosthogJsSite {
  origin: string;
  /** The page's address with this setup (the token, the API host, the person…). */
  pageUrl(setup: unknown): string;
  close(): Promise<void>;
}

function serve(): Server {
  return createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://site.test');
    if (url.pathname === '/posthog-js/array.full.js') {
      response.writeHead(200, { 'content-type': 'application/javascript; charset=utf-8' });
      response.end(readFileSync(BUNDLE));
      return;
    }
    if (url.pathname === '/') {
      // JSON embedded in a script: `<` escaped so no value can close the script element.
      const setup = JSON.stringify(JSON.parse(url.searchParams.get('setup') ?? '{}')).replace(/</g, '\\u003c');
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(PAGE_TEMPLATE.replace('__SETUP__', setup));
      return;
    }
    response.writeHead(404).end();
  });
}

export async function startPosthogJsSite(): Promise<PosthogJsSite> {
  const server = serve();
  const origin = await new Promise<string>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
  return {
    origin,
    pageUrl: (setup) => `${origin}/?setup=${encodeURIComponent(JSON.stringify(setup))}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
