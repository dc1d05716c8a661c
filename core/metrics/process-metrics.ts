/**
 * The API process itself: prom-client's default metrics (process_cpu_seconds_total,
 * process_resident_memory_bytes, open file descriptors, Node's heap, event-loop lag and GC).
 */
import { collectDefaultMetrics, type Registry } from 'prom-client';

/**
 * prom-client exposes these gauges under two names, one with a `_total` suffix that Prometheus reserves for
 * counters (promtool check metrics refuses them). The names without the suffix carry the same values.
 */
const MISNAMED = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export function registerProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of MISNAMED) if (registry.getSingleMetric(name)) registry.removeSingleMetric(name);
}
