import type { FastifyInstance } from 'fastify';
import { httpDuration, httpRequests } from '../metrics/metrics.ts';

/** Every answer counted and timed by route pattern (never the raw URL: ids and tokens would explode the series). */
export function installRequestMetrics(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    const labels = { method: request.method, route: request.routeOptions.url ?? '(unmatched)', status: String(reply.statusCode) };
    httpRequests.inc(labels);
    httpDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}
