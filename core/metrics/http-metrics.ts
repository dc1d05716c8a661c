/**
 * API requests: a duration histogram by method, route and status. The route is the pattern Fastify matched
 * (/svc/pipeline/:id), never the URL, so pipeline ids do not multiply the series; a request that matched no
 * route (a 404, or a 401 for an unknown path while a password is set) is `unmatched`.
 *
 * SSE streams are left out: they end when the subscriber goes, and minutes-long "requests" would swamp the
 * buckets that tell how fast the API answers. encoderd_sse_subscribers and encoderd_sse_subscriptions_total
 * count them instead.
 */
import type { FastifyInstance } from 'fastify';
import { Histogram, type Registry } from 'prom-client';
import { isSseStream } from './sse-streams';

export const UNMATCHED_ROUTE = 'unmatched';

/** Seconds. From a cached status read (sub-millisecond) to a pipeline start that waits for PLAYING (seconds). */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Hooks the app; call before the routes are registered, like every hook meant to cover all of them. */
export function registerHttpMetrics(app: FastifyInstance, registry: Registry): void {
  const duration = new Histogram({
    name: 'encoderd_http_request_duration_seconds',
    help: 'Time from receiving an API request to the end of its answer, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: BUCKETS,
    registers: [registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (!isSseStream(request)) {
      const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
      duration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    }
    done();
  });
}
