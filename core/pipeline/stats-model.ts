/**
 * What a pipeline's media is doing, measured at the data plane by its engine host (buffer probes, QoS messages,
 * element properties, the latency query), never derived from the configuration. The shapes of the `stats` and
 * `health` fields of the pipeline object, of GET /svc/pipeline/{id}/stats, of the `pipeline_stats` event and of
 * the per-pipeline metrics (docs/api.md, "Statistics and health").
 */

export type Health = 'ok' | 'degraded' | 'failing';

/**
 * Frame figures are null where nothing counts frames (an advanced description names its own elements); every figure
 * is null for an on-demand pipeline, whose media runs inside the RTSP server (only rtsp_clients is measured there).
 */
export interface RateFigures {
  /** Counted since playing. */
  frames: number | null;
  bytes: number | null;
  /** Over the last second. */
  fps: number | null;
  bitrate_kbps: number | null;
  /** Since playing. */
  fps_avg: number | null;
  bitrate_kbps_avg: number | null;
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
  /** Frames the source delivered into the pipeline (null where not measured). */
  source: { frames: number; fps: number } | null;
  /** Frames dropped on the way: QoS drops that elements reported (a late frame thrown away). */
  dropped_frames: number;
  /**
   * The videorate's adjustments to the configured rate: frames dropped (a faster source decimated) and duplicated (a
   * slower or jittery source filled in). Not losses in themselves; null where there is no videorate.
   */
  rate_adjusted: { dropped: number; duplicated: number } | null;
  /** Source to output sink, from GStreamer's latency query; null where the query gives none. */
  latency_ms: number | null;
  /** Multiview only: each input. */
  inputs?: InputStats[];
  /** Local RTSP output only: clients connected now. */
  rtsp_clients?: number;
  /**
   * Bus messages and samples dropped on their way from GStreamer's threads to the engine host's JS thread, whose
   * queue is bounded (a stalled host costs a bounded amount of memory), since playing; absent on demand.
   */
  ipc_dropped?: number;
  /**
   * Local RTSP output only: the RTSP server's events (clients, media prepared and torn down) dropped on their way to
   * the engine host's JS thread, whose queue is bounded too, since playing.
   */
  service_events_dropped?: number;
  /**
   * What the output's and the source's network transports report about their connections (a transport socket's round
   * trip, lost and retransmitted packets, rate), figures named by their plugins (core/sdk/transport.ts); absent where
   * neither declares any, and a figure the element does not report yet is left out.
   */
  transport?: { source?: Record<string, number>; output?: Record<string, number> };
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
