/**
 * The engine hosts: how many run, and what each costs (CPU seconds, resident memory), labelled by the pipeline
 * it serves. The API process's own figures are the default process_* metrics; these make the hosts as visible,
 * since with one host per pipeline most of the encoder's CPU and memory is theirs.
 */
import type { Registry } from 'prom-client';
import type { PipelineMetricsRow } from '../pipeline/stats-model';
import { processUsage, type ProcessUsage } from './process-usage';
import { oncePerScrape } from './scrape-snapshot';
import { snapshotFamily } from './snapshot-family';

interface HostRow {
  pipeline: string;
  usage: ProcessUsage | null;
}

export function registerEngineHostMetrics(registry: Registry, rows: () => readonly PipelineMetricsRow[], procRoot?: string): void {
  const hosts = oncePerScrape((): HostRow[] => rows()
    .filter((r) => r.hostPid !== null)
    .map((r) => ({ pipeline: r.id, usage: processUsage(r.hostPid as number, procRoot) })));
  snapshotFamily(registry, hosts, {
    name: 'encoderd_engine_hosts_running',
    kind: 'gauge',
    labelNames: [],
    help: 'Engine host processes running now (one per pipeline that has one).',
    series: (all) => [[{}, all.length]],
  });
  snapshotFamily(registry, hosts, {
    name: 'encoderd_engine_host_cpu_seconds_total',
    kind: 'counter',
    labelNames: ['pipeline'],
    help: 'User and system CPU time of the pipeline\'s engine host process since it started.',
    series: (all) => all.flatMap((h) => (h.usage ? [[{ pipeline: h.pipeline }, h.usage.cpuSeconds] as const] : [])),
  });
  snapshotFamily(registry, hosts, {
    name: 'encoderd_engine_host_resident_memory_bytes',
    kind: 'gauge',
    labelNames: ['pipeline'],
    help: 'Resident memory of the pipeline\'s engine host process.',
    series: (all) => all.flatMap((h) => (h.usage ? [[{ pipeline: h.pipeline }, h.usage.residentBytes] as const] : [])),
  });
}
