/**
 * SSE subscribers: the streams open now, per route, and every stream opened. core/http/sse.ts (which every SSE
 * route uses) reports each stream here; the counts belong to the service whose app serves the stream, so two
 * services in one process (tests) count their own.
 *
 * A stream's request is also remembered, so the request-duration histogram can leave it out: its "duration" is
 * how long a subscriber stayed, not how fast the API answered.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';

interface Tracker {
  open: Map<string, number>;
  opened: Counter<'route'>;
}

const trackers = new WeakMap<object, Tracker>();
const streamRequests = new WeakSet<object>();

/** The tracker of the app serving the request. Routes registered inside a plugin see a child instance, which
 *  Fastify derives from its parent by prototype: walk up to the instance that registered the metrics. */
function trackerOf(server: FastifyInstance): Tracker | undefined {
  for (let o: object | null = server; o !== null; o = Object.getPrototypeOf(o) as object | null) {
    const t = trackers.get(o);
    if (t) return t;
  }
  return undefined;
}

/** Called by openSse for each stream it opens; the function it answers is called once, when the stream ends. */
export function sseStreamOpened(request: FastifyRequest): () => void {
  streamRequests.add(request.raw);
  const tracker = trackerOf(request.server);
  if (!tracker) return () => undefined;
  const route = request.routeOptions.url ?? 'unmatched';
  tracker.open.set(route, (tracker.open.get(route) ?? 0) + 1);
  tracker.opened.inc({ route });
  return () => { tracker.open.set(route, (tracker.open.get(route) ?? 1) - 1); };
}

export function isSseStream(request: FastifyRequest): boolean {
  return streamRequests.has(request.raw);
}

export function registerSseMetrics(app: FastifyInstance, registry: Registry): void {
  const open = new Map<string, number>();
  const opened = new Counter({
    name: 'encoderd_sse_subscriptions_total',
    help: 'Server-sent event streams opened, by route.',
    labelNames: ['route'],
    registers: [registry],
  });
  new Gauge({
    name: 'encoderd_sse_subscribers',
    help: 'Server-sent event streams open now, by route.',
    labelNames: ['route'],
    registers: [registry],
    collect() {
      for (const [route, n] of open) this.set({ route }, n);
    },
  });
  trackers.set(app, { open, opened });
}
