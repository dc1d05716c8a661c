/**
 * The service's metrics, exposed at GET /svc/metrics (core/http/routes/metrics.ts; docs/metrics.md). One
 * registry per service, never prom-client's global one: tests build several services in one process.
 */
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import type { PipelineMetricsRow } from '../pipeline/stats-model';
import type { DeliveryResult } from '../webhooks/dispatcher';
import { registerDeviceMetrics } from './device-metrics';
import { registerEngineHostMetrics } from './engine-host-metrics';
import { registerHttpMetrics } from './http-metrics';
import { registerPipelineMetrics } from './pipeline-metrics';
import { registerProcessMetrics } from './process-metrics';
import { oncePerScrape } from './scrape-snapshot';
import { registerSseMetrics } from './sse-streams';
import { registerWebhookMetrics } from './webhook-metrics';

export interface ServiceMetrics {
  registry: Registry;
  /** Counts one webhook delivery (WebhookDispatcher.onDelivery). */
  webhookDelivered(result: DeliveryResult): void;
  /** Where encoderd_camera_events_dropped_total reads its total (the devices' CameraMonitor.droppedEvents). */
  cameraEventsDroppedFrom(droppedEvents: () => number): void;
}

/** Call before the routes are registered: the request histogram hooks the app. */
export function createServiceMetrics(app: FastifyInstance, rows: () => readonly PipelineMetricsRow[]): ServiceMetrics {
  const registry = new Registry();
  registerProcessMetrics(registry);
  registerHttpMetrics(app, registry);
  registerSseMetrics(app, registry);
  const snapshot = oncePerScrape(rows);
  registerPipelineMetrics(registry, snapshot);
  registerEngineHostMetrics(registry, snapshot);
  return { registry, webhookDelivered: registerWebhookMetrics(registry), cameraEventsDroppedFrom: registerDeviceMetrics(registry) };
}
