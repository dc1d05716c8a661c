/**
 * Per-pipeline metrics, read at scrape time from PipelineManager.metricsRows() (core/pipeline/stats-model.ts).
 * Every series carries `pipeline`, `mode`, `codec` and `output`, so a dashboard can group by any of them
 * without a join. What is measured only while playing (the `stats`) has no series while the pipeline is not
 * playing, nor does a figure the stats give as null (not measured for this kind of pipeline): a zero would be a
 * measurement nobody made. State, health and the counters kept since the pipeline was created are there
 * always. docs/metrics.md lists every family.
 */
import type { Registry } from 'prom-client';
import type { PipelineMetricsRow, PipelineStats } from '../pipeline/stats-model';
import { snapshotFamily, type FamilySpec, type Series } from './snapshot-family';

const LABELS = ['pipeline', 'mode', 'codec', 'output'] as const;
const HEALTH_STATES = ['ok', 'degraded', 'failing'] as const;

function labelsOf(row: PipelineMetricsRow): Record<string, string> {
  return { pipeline: row.id, mode: row.mode, codec: row.codec, output: row.output };
}

/** One series per pipeline. */
function perPipeline(value: (row: PipelineMetricsRow) => number) {
  return (rows: readonly PipelineMetricsRow[]): Series[] => rows.map((row) => [labelsOf(row), value(row)]);
}

/** One series per playing pipeline whose stats carry the figure. */
function perPlaying(value: (stats: PipelineStats) => number | null | undefined) {
  return function* (rows: readonly PipelineMetricsRow[]): Iterable<Series> {
    for (const row of rows) {
      const v = row.stats ? value(row.stats) : null;
      if (v !== null && v !== undefined) yield [labelsOf(row), v];
    }
  };
}

/** One series per input of each playing multiview pipeline, with an `input` label (its index). */
function perInput(value: (input: NonNullable<PipelineStats['inputs']>[number]) => number) {
  return function* (rows: readonly PipelineMetricsRow[]): Iterable<Series> {
    for (const row of rows) {
      for (const input of row.stats?.inputs ?? []) yield [{ ...labelsOf(row), input: String(input.index) }, value(input)];
    }
  };
}

/** One series per figure of each playing pipeline's transports, with `side` (source, output) and `figure` labels. */
function* perTransportFigure(rows: readonly PipelineMetricsRow[]): Iterable<Series> {
  for (const row of rows) {
    for (const [side, figures] of Object.entries(row.stats?.transport ?? {})) {
      for (const [figure, value] of Object.entries(figures ?? {})) yield [{ ...labelsOf(row), side, figure }, value];
    }
  }
}

export const PIPELINE_FAMILIES: ReadonlyArray<FamilySpec<PipelineMetricsRow>> = [
  {
    name: 'encoderd_pipeline_playing', kind: 'gauge', labelNames: LABELS,
    help: '1 while the pipeline is playing, 0 while it is ready (stopped).',
    series: perPipeline((r) => (r.state === 'playing' ? 1 : 0)),
  },
  {
    name: 'encoderd_pipeline_health',
    kind: 'gauge',
    labelNames: [...LABELS, 'health'],
    help: 'The pipeline\'s health as a state set: 1 for the state it is in (ok, degraded, failing), 0 for the others.',
    *series(rows) {
      for (const row of rows) for (const h of HEALTH_STATES) yield [{ ...labelsOf(row), health: h }, row.health === h ? 1 : 0];
    },
  },
  {
    name: 'encoderd_pipeline_host_restarts_total', kind: 'counter', labelNames: LABELS,
    help: 'Engine host restarts after a crash, since the pipeline was created.',
    series: perPipeline((r) => r.counters.host_restarts),
  },
  {
    name: 'encoderd_pipeline_source_reconnects_total', kind: 'counter', labelNames: LABELS,
    help: 'Source reconnections after a loss, since the pipeline was created.',
    series: perPipeline((r) => r.counters.source_reconnects),
  },
  {
    name: 'encoderd_pipeline_errors_total', kind: 'counter', labelNames: LABELS,
    help: 'Errors the pipeline reported, since it was created.',
    series: perPipeline((r) => r.counters.errors),
  },
  {
    name: 'encoderd_pipeline_uptime_seconds', kind: 'gauge', labelNames: LABELS,
    help: 'Time since the pipeline reached playing.',
    series: perPlaying((s) => s.uptime_s),
  },
  {
    name: 'encoderd_pipeline_output_frames_total', kind: 'counter', labelNames: LABELS,
    help: 'Encoded video frames that reached the output, since playing.',
    series: perPlaying((s) => s.output.frames),
  },
  {
    name: 'encoderd_pipeline_output_bytes_total', kind: 'counter', labelNames: LABELS,
    help: 'Bytes that reached the output\'s sinks, since playing.',
    series: perPlaying((s) => s.output.bytes),
  },
  {
    name: 'encoderd_pipeline_output_frames_per_second', kind: 'gauge', labelNames: LABELS,
    help: 'Encoded frames per second at the output, over the last second.',
    series: perPlaying((s) => s.output.fps),
  },
  // Prometheus's base unit for data is the byte: the stats' kbit/s × 1000 / 8.
  {
    name: 'encoderd_pipeline_output_bytes_per_second', kind: 'gauge', labelNames: LABELS,
    help: 'Output bitrate over the last second, in bytes per second.',
    series: perPlaying((s) => (s.output.bitrate_kbps === null ? null : s.output.bitrate_kbps * 125)),
  },
  {
    name: 'encoderd_pipeline_source_frames_total', kind: 'counter', labelNames: LABELS,
    help: 'Frames the source delivered into the pipeline, since playing.',
    series: perPlaying((s) => s.source?.frames),
  },
  {
    name: 'encoderd_pipeline_source_frames_per_second', kind: 'gauge', labelNames: LABELS,
    help: 'Frames per second from the source, over the last second.',
    series: perPlaying((s) => s.source?.fps),
  },
  {
    name: 'encoderd_pipeline_dropped_frames_total', kind: 'counter', labelNames: LABELS,
    help: 'Frames dropped on the way (late frames thrown away, as elements report in QoS messages), since playing.',
    series: perPlaying((s) => s.dropped_frames),
  },
  {
    name: 'encoderd_pipeline_rate_dropped_frames_total', kind: 'counter', labelNames: LABELS,
    help: 'Frames the frame-rate converter dropped to keep the configured rate (a faster source), since playing.',
    series: perPlaying((s) => s.rate_adjusted?.dropped),
  },
  {
    name: 'encoderd_pipeline_rate_duplicated_frames_total', kind: 'counter', labelNames: LABELS,
    help: 'Frames the frame-rate converter duplicated to keep the configured rate (a slower source), since playing.',
    series: perPlaying((s) => s.rate_adjusted?.duplicated),
  },
  {
    name: 'encoderd_pipeline_ipc_dropped_total', kind: 'counter', labelNames: LABELS,
    help: 'Bus messages and samples the engine host\'s bounded queue to its JS thread dropped (a stalled host), since playing.',
    series: perPlaying((s) => s.ipc_dropped),
  },
  {
    name: 'encoderd_pipeline_service_events_dropped_total', kind: 'counter', labelNames: LABELS,
    help: 'RTSP server events the engine host\'s bounded queue to its JS thread dropped (a stalled host), since playing.',
    series: perPlaying((s) => s.service_events_dropped),
  },
  {
    name: 'encoderd_pipeline_latency_seconds', kind: 'gauge', labelNames: LABELS,
    help: 'Source to output sink latency from GStreamer\'s latency query; absent where the query gives none.',
    series: perPlaying((s) => (s.latency_ms === null ? null : s.latency_ms / 1000)),
  },
  {
    name: 'encoderd_pipeline_rtsp_clients', kind: 'gauge', labelNames: LABELS,
    help: 'Clients connected now to the pipeline\'s local RTSP output.',
    series: perPlaying((s) => s.rtsp_clients),
  },
  // Figures of different kinds (a round trip, a packet total) under one name: the plugin names them and their units,
  // the core cannot know them beforehand. Totals are since the connection began, so they are gauges, not counters.
  {
    name: 'encoderd_pipeline_transport', kind: 'gauge', labelNames: [...LABELS, 'side', 'figure'],
    help: 'What the source\'s or output\'s network transport reports about its connection (rtt_ms, packets_lost, send_rate_kbps, …), as its plugin names it; the unit is in the name.',
    series: perTransportFigure,
  },
  {
    name: 'encoderd_pipeline_input_frames_per_second', kind: 'gauge', labelNames: [...LABELS, 'input'],
    help: 'Multiview: frames per second from each input, over the last second.',
    series: perInput((i) => i.fps),
  },
  {
    name: 'encoderd_pipeline_input_live', kind: 'gauge', labelNames: [...LABELS, 'input'],
    help: 'Multiview: 1 when a frame arrived from the input within the last second, else 0.',
    series: perInput((i) => (i.live ? 1 : 0)),
  },
];

export function registerPipelineMetrics(registry: Registry, rows: () => readonly PipelineMetricsRow[]): void {
  for (const family of PIPELINE_FAMILIES) snapshotFamily(registry, rows, family);
}
