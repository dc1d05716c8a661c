/**
 * What a pipeline's media is doing, measured at the data plane by its engine host (buffer probes, QoS messages,
 * element properties, the latency query), never derived from the configuration. The shapes of the `stats` and
 * `health` fields of the pipeline object, of GET /svc/pipeline/{id}/stats, of the `pipeline_stats` event and of
 * the per-pipeline metrics (docs/api.md, "Statistics and health").
 */

export type Health = 'ok' | 'degraded' | 'failing';

export interface RateFigures {
  /** Counted since playing. */
  frames: number;
  bytes: number;
  /** Over the last second. */
  fps: number;
  bitrate_kbps: number;
  /** Since playing. */
  fps_avg: number;
  bitrate_kbps_avg: number;
}

export interface InputStats {
  index: number;
  fps: number;
  /** A frame arrived within the last second. */
  live: boolean;
}

export interface PipelineStats {
  /** When the pipeline reached playing (ISO 8601). */
  playing_since: string;
  uptime_s: number;
  /** Encoded video that reached the output (frames), and every byte that reached the output's sinks. */
  output: RateFigures;
  /** Frames the source delivered into the pipeline. */
  source: { frames: number; fps: number };
  /** Frames dropped on the way: QoS drops reported by elements, and the videorate's drops. */
  dropped_frames: number;
  /** Source to output sink, from GStreamer's latency query; null where the query gives none. */
  latency_ms: number | null;
  /** Multiview only: each input. */
  inputs?: InputStats[];
  /** Local RTSP output only: clients connected now. */
  rtsp_clients?: number;
  /** Since the pipeline was created (these also live in `counters`). */
  host_restarts: number;
  source_reconnects: number;
  last_error: { message: string; at: string } | null;
}

/** Counted since the pipeline was created, whether or not it plays now. */
export interface PipelineCounters {
  host_restarts: number;
  source_reconnects: number;
  errors: number;
  last_error: { message: string; at: string } | null;
}

/** One pipeline as the metrics see it (PipelineManager.metricsRows()). */
export interface PipelineMetricsRow {
  id: string;
  mode: string;
  /** The video codec (encoding.codec, or the probed codec of a passed-through stream); 'none' when not known. */
  codec: string;
  /** The output plugin's name ('udp', 'rtsp', …); 'advanced' for an advanced description. */
  output: string;
  state: 'ready' | 'playing';
  health: Health;
  stats: PipelineStats | null;
  counters: PipelineCounters;
  /** The engine host's process id, while one runs. */
  hostPid: number | null;
}
