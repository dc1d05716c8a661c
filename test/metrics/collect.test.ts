/**
 * The per-pipeline and engine host collect code, fed fake rows (pure: no service, no GStreamer): which series
 * appear, with which labels and values, and that the exposition passes `promtool check metrics`. The live
 * service cannot show full stats yet (metricsRows() fills them in later), so this is where every stats-dependent
 * family is checked.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerEngineHostMetrics } from '../../core/metrics/engine-host-metrics';
import { registerPipelineMetrics } from '../../core/metrics/pipeline-metrics';
import { processUsage } from '../../core/metrics/process-usage';
import { createServiceMetrics } from '../../core/metrics/service-metrics';
import type { PipelineMetricsRow } from '../../core/pipeline/stats-model';
import { ROOT } from '../helpers/service';

const playing: PipelineMetricsRow = {
  id: 'wall',
  mode: 'multiview',
  codec: 'h265',
  output: 'rtsp',
  state: 'playing',
  health: 'degraded',
  stats: {
    playing_since: '2024-05-01T10:00:00.000Z',
    uptime_s: 3600,
    output: { frames: 108000, bytes: 450_000_000, fps: 29.97, bitrate_kbps: 1000, fps_avg: 30, bitrate_kbps_avg: 1000 },
    source: { frames: 108010, fps: 30 },
    dropped_frames: 10,
    rate_adjusted: { dropped: 7, duplicated: 2 },
    latency_ms: 120,
    inputs: [{ index: 0, fps: 30, live: true }, { index: 1, fps: 0, live: false }],
    rtsp_clients: 3,
    transport: { output: { rtt_ms: 0.25, packets_lost: 3, send_rate_kbps: 1737.3 }, source: { rtt_ms: 12.5 } },
    host_restarts: 1,
    source_reconnects: 2,
    last_error: { message: 'input 1 lost', at: '2024-05-01T10:30:00.000Z' },
  },
  counters: { host_restarts: 1, source_reconnects: 2, errors: 4, last_error: { message: 'input 1 lost', at: '2024-05-01T10:30:00.000Z' } },
  hostPid: process.pid,
};

const ready: PipelineMetricsRow = {
  id: 'spare',
  mode: 'simple',
  codec: 'h264',
  output: 'udp',
  state: 'ready',
  health: 'ok',
  stats: null,
  counters: { host_restarts: 0, source_reconnects: 0, errors: 0, last_error: null },
  hostPid: null,
};

const W = 'pipeline="wall",mode="multiview",codec="h265",output="rtsp"';
const S = 'pipeline="spare",mode="simple",codec="h264",output="udp"';

function registryOf(rows: () => readonly PipelineMetricsRow[]): Registry {
  const registry = new Registry();
  registerPipelineMetrics(registry, rows);
  registerEngineHostMetrics(registry, rows);
  return registry;
}

/** The registry a service builds, on a bare Fastify app (its request hook is registered, never called here). */
function serviceRegistryOf(rows: () => readonly PipelineMetricsRow[]): Registry {
  return createServiceMetrics(Fastify({ logger: false }) as unknown as FastifyInstance, rows).registry;
}

const seriesLines = (text: string) => text.split('\n').filter((l) => l && !l.startsWith('#'));

describe('per-pipeline metrics from metricsRows()', () => {
  it('a playing pipeline with full stats: every family, labelled, in base units', async () => {
    const lines = seriesLines(await registryOf(() => [playing]).metrics());
    for (const line of [
      `encoderd_pipeline_playing{${W}} 1`,
      `encoderd_pipeline_health{${W},health="ok"} 0`,
      `encoderd_pipeline_health{${W},health="degraded"} 1`,
      `encoderd_pipeline_health{${W},health="failing"} 0`,
      `encoderd_pipeline_host_restarts_total{${W}} 1`,
      `encoderd_pipeline_source_reconnects_total{${W}} 2`,
      `encoderd_pipeline_errors_total{${W}} 4`,
      `encoderd_pipeline_uptime_seconds{${W}} 3600`,
      `encoderd_pipeline_output_frames_total{${W}} 108000`,
      `encoderd_pipeline_output_bytes_total{${W}} 450000000`,
      `encoderd_pipeline_output_frames_per_second{${W}} 29.97`,
      `encoderd_pipeline_output_bytes_per_second{${W}} 125000`,
      `encoderd_pipeline_source_frames_total{${W}} 108010`,
      `encoderd_pipeline_source_frames_per_second{${W}} 30`,
      `encoderd_pipeline_dropped_frames_total{${W}} 10`,
      `encoderd_pipeline_rate_dropped_frames_total{${W}} 7`,
      `encoderd_pipeline_rate_duplicated_frames_total{${W}} 2`,
      `encoderd_pipeline_latency_seconds{${W}} 0.12`,
      `encoderd_pipeline_rtsp_clients{${W}} 3`,
      `encoderd_pipeline_transport{${W},side="output",figure="rtt_ms"} 0.25`,
      `encoderd_pipeline_transport{${W},side="output",figure="packets_lost"} 3`,
      `encoderd_pipeline_transport{${W},side="output",figure="send_rate_kbps"} 1737.3`,
      `encoderd_pipeline_transport{${W},side="source",figure="rtt_ms"} 12.5`,
      `encoderd_pipeline_input_frames_per_second{${W},input="0"} 30`,
      `encoderd_pipeline_input_frames_per_second{${W},input="1"} 0`,
      `encoderd_pipeline_input_live{${W},input="0"} 1`,
      `encoderd_pipeline_input_live{${W},input="1"} 0`,
      'encoderd_engine_hosts_running 1',
      'encoderd_engine_host_cpu_seconds_total{pipeline="wall"}',
      'encoderd_engine_host_resident_memory_bytes{pipeline="wall"}',
    ]) expect(lines.some((l) => l === line || l.startsWith(`${line} `)), line).toBe(true);
  });

  it('a pipeline that is not playing has its state, health and counters only', async () => {
    const lines = seriesLines(await registryOf(() => [ready]).metrics()).filter((l) => l.includes('pipeline="spare"'));
    const families = new Set(lines.map((l) => l.slice(0, l.indexOf('{'))));
    expect([...families].sort()).toEqual([
      'encoderd_pipeline_errors_total',
      'encoderd_pipeline_health',
      'encoderd_pipeline_host_restarts_total',
      'encoderd_pipeline_playing',
      'encoderd_pipeline_source_reconnects_total',
    ]);
    expect(lines).toContain(`encoderd_pipeline_playing{${S}} 0`);
    expect(lines).toContain(`encoderd_pipeline_health{${S},health="ok"} 1`);
    expect(seriesLines(await registryOf(() => [ready]).metrics())).toContain('encoderd_engine_hosts_running 0');
  });

  it('a figure that is null or absent (not measured for this pipeline) gives no series, not a zero', async () => {
    const unmeasured: PipelineMetricsRow = {
      ...playing,
      stats: {
        ...playing.stats!,
        output: { frames: null, bytes: 9000, fps: null, bitrate_kbps: null, fps_avg: null, bitrate_kbps_avg: null },
        source: null,
        rate_adjusted: null,
        latency_ms: null,
        rtsp_clients: undefined,
        inputs: undefined,
        transport: undefined,
      },
    };
    const text = await registryOf(() => [unmeasured]).metrics();
    const stats = seriesLines(text).filter((l) => /^encoderd_pipeline_(?!playing|health|host_restarts|source_reconnects|errors)/.test(l));
    expect(stats.sort()).toEqual([
      `encoderd_pipeline_dropped_frames_total{${W}} 10`,
      `encoderd_pipeline_output_bytes_total{${W}} 9000`,
      `encoderd_pipeline_uptime_seconds{${W}} 3600`,
    ]);
  });

  it('a deleted pipeline disappears at the next scrape; a restarted one counts from its new total', async () => {
    let rows: PipelineMetricsRow[] = [playing, ready];
    const registry = registryOf(() => rows);
    expect(await registry.metrics()).toContain('pipeline="spare"');
    rows = [{ ...playing, stats: { ...playing.stats!, output: { ...playing.stats!.output, frames: 5 } } }];
    const text = await registry.metrics();
    expect(text).not.toContain('pipeline="spare"');
    expect(seriesLines(text)).toContain(`encoderd_pipeline_output_frames_total{${W}} 5`);
  });

  it('the whole service registry (process, HTTP, SSE, webhooks too) passes promtool check metrics with no problem', async () => {
    const text = await serviceRegistryOf(() => [playing, ready]).metrics();
    const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(r.error).toBeUndefined();
    expect(`${r.stdout}${r.stderr}`.trim()).toBe('');
    expect(r.status).toBe(0);
  });

  it('every encoderd family is in docs/metrics.md', async () => {
    const doc = readFileSync(join(ROOT, 'docs/metrics.md'), 'utf8');
    const text = await serviceRegistryOf(() => [playing]).metrics();
    const names = [...text.matchAll(/^# TYPE (encoderd_\S+) /gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(25);
    for (const name of names) expect(doc, name).toContain(`\`${name}\``);
  });
});

describe('processUsage', () => {
  it('reads this process: CPU seconds used and resident memory close to what Node reports', () => {
    const usage = processUsage(process.pid);
    expect(usage).not.toBeNull();
    expect(usage!.cpuSeconds).toBeGreaterThan(0);
    const rss = process.memoryUsage().rss;
    expect(usage!.residentBytes).toBeGreaterThan(rss / 2);
    expect(usage!.residentBytes).toBeLessThan(rss * 2);
  });

  it('counts fields after the last parenthesis (a command name may hold spaces and parentheses)', () => {
    const root = mkdtempSync(join(tmpdir(), 'encoderd-proc-'));
    mkdirSync(join(root, '42'));
    const after = 'S 1 42 42 0 -1 4194560 100 0 0 0 250 130 0 0 20 0 1 0 1000 1000000 500';
    writeFileSync(join(root, '42/stat'), `42 (engine (host) 1) ${after}\n`);
    writeFileSync(join(root, '42/status'), 'Name:\tengine\nVmRSS:\t   20480 kB\nThreads:\t4\n');
    expect(processUsage(42, root)).toEqual({ cpuSeconds: 3.8, residentBytes: 20480 * 1024 });
    // A zombie has no VmRSS; a process gone has no directory.
    writeFileSync(join(root, '42/status'), 'Name:\tengine\nState:\tZ (zombie)\n');
    expect(processUsage(42, root)).toBeNull();
    expect(processUsage(43, root)).toBeNull();
  });
});
