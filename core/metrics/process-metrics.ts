/**
 * The API process itself: prom-client's default metrics (process_cpu_seconds_total,
 * process_resident_memory_bytes, open file descriptors, Node's heap, event-loop lag and GC), and its C heap as
 * glibc sees it. Node's heap and external figures leave out what glibc holds for the process's threads (TLS,
 * libuv's pool, the addon): with both, a growing RSS can be told apart as V8's, Buffers', or the allocator's.
 */
import { collectDefaultMetrics, Gauge, type Registry } from 'prom-client';
import { loadNative } from '../engine/native';

/**
 * prom-client exposes these gauges under two names, one with a `_total` suffix that Prometheus reserves for
 * counters (promtool check metrics refuses them). The names without the suffix carry the same values.
 */
const MISNAMED = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export function registerProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of MISNAMED) if (registry.getSingleMetric(name)) registry.removeSingleMetric(name);
  new Gauge({
    name: 'encoderd_api_malloc_bytes',
    help: "The API process's C heap (glibc mallinfo2 over every arena): in_use by the program, held by glibc (in use or free)",
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      const { inUse, held } = loadNative().mallocStats();
      this.set({ kind: 'in_use' }, inUse);
      this.set({ kind: 'held' }, held);
    },
  });
}
