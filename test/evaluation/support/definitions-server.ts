/**
 * A tiny stand-in for the definitions endpoints posthog-node polls: `GET /flags/definitions`
 * (5.29.4+) and `GET /api/feature_flag/local_evaluation` (older), both answering the same body.
 * Anything else is a 404 and is recorded, so a test can assert the SDK never went remote.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DefinitionsServer {
  url: string;
  definitionRequests: number;
  unexpected: string[];
  close(): Promise<void>;
}

export async function startDefinitionsServer(body: unknown): Promise<DefinitionsServer> {
  const json = JSON.stringify(body);
  const state = { definitionRequests: 0, unexpected: [] as string[] };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
    if (req.method === 'GET' && (path === '/flags/definitions' || path === '/api/feature_flag/local_evaluation')) {
      state.definitionRequests++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(json);
      return;
    }
    state.unexpected.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"detail":"Not found."}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get definitionRequests() {
      return state.definitionRequests;
    },
    unexpected: state.unexpected,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
