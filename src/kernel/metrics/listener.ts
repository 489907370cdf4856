/**
 * `/metrics` on a port of its own (METRICS_PORT), never on the public one. With workers, the
 * primary serves it and sums the workers' metrics (prom-client's AggregatorRegistry over IPC).
 */
import http from 'node:http';
import client from 'prom-client';

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

export async function startMetricsListener(port: number, host: string, source: 'process' | 'cluster'): Promise<MetricsListener> {
  const aggregator = source === 'cluster' ? new client.AggregatorRegistry() : null;
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const metrics = aggregator ? aggregator.clusterMetrics() : client.register.metrics();
    metrics.then(
      (body) => response.writeHead(200, { 'content-type': (aggregator ?? client.register).contentType }).end(body),
      (error: Error) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics unavailable: ${error.message}\n`),
    );
  });
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${bound}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
