/**
 * GET /svc/metrics: Prometheus text exposition of the service's registry (core/metrics/; docs/metrics.md).
 * Not public: the auth gate covers it like every other route, and a scraper sends a bearer token.
 */
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

export function metricsRoutes(app: FastifyInstance, registry: Registry): void {
  app.get('/svc/metrics', {
    schema: {
      description: 'Prometheus metrics: per pipeline, engine hosts, API requests, SSE subscribers, webhooks, the process.',
      response: { 200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } } },
    },
  }, async (_req, reply) => {
    const text = await registry.metrics();
    return reply.type(registry.contentType).send(text);
  });
}
