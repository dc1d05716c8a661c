/**
 * Statistics and health from the engine host's raw samples (core/engine/host-stats.ts). Pure: samples and clocks in,
 * figures out, so each rule has a unit test. The shapes are core/pipeline/stats-model.ts; the rules are written out
 * in docs/api.md ("Statistics and health").
 */
import type { StatsSample } from '../engine/protocol';
import type { Health, PipelineCounters, PipelineStats } from './stats-model';

/** Nothing reached the output for this long while wanted playing: failing. */
export const STALL_MS = 3000;
/** This many failures (errors, restarts, failed starts) within FAILURE_WINDOW_MS: failing, even if it flows between them. */
export const FAILURES_FOR_FAILING = 3;
export const FAILURE_WINDOW_MS = 30_000;
/** Degraded judgements wait this long after a start: encoders and rate converters settle first. */
export const SETTLE_MS = 3000;
/** QoS drops within this window: degraded. */
export const DROP_WINDOW_MS = 5000;

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The samples of one run of the pipeline (from its start to its stop), turned into figures. */
export class StatsWindow {
  private first: StatsSample | null = null;
  private prev: StatsSample | null = null;
  private last: StatsSample | null = null;
  /** Host time of the last sample whose output bytes grew (from the second growth of the run on). */
  private flowAt: number | null = null;
  private growths = 0;
  /** Host time of the last sample with more QoS drops than the one before it. */
  private droppedAt: number | null = null;

  /** Made before the engine host is asked to play (its first sample comes with its reply); dated when playing is reached. */
  constructor(public playingSince: Date) {}

  add(sample: StatsSample): void {
    const last = this.last;
    if (last && sample.atMs <= last.atMs) return;
    this.first ??= sample;
    if (sample.bytes !== null && sample.bytes > (last?.bytes ?? 0)) {
      // The first growth of a run may be only a container's header (an mp4mux that then fails writes 48 bytes):
      // the output flows once it has grown a second time.
      this.growths += 1;
      if (this.growths >= 2) this.flowAt = sample.atMs;
    }
    if (last && sample.qosDropped > last.qosDropped) this.droppedAt = sample.atMs;
    this.prev = last;
    this.last = sample;
  }

  /** Wall-clock ms of the last growth of the output's bytes, or null (never, or not measured). */
  lastFlowAt(): number | null {
    return this.flowAt;
  }

  /** Whether output bytes are measured at all (not on demand). */
  measuresFlow(): boolean {
    return this.last !== null && this.last.bytes !== null;
  }

  droppedSince(ms: number): boolean {
    return this.droppedAt !== null && this.droppedAt >= ms;
  }

  /** Frames per second over the last interval, or null. */
  fps(): number | null {
    const { prev, last } = this;
    if (!prev || !last || prev.frames === null || last.frames === null) return null;
    return (last.frames - prev.frames) / ((last.atMs - prev.atMs) / 1000);
  }

  figures(now: number, counters: PipelineCounters): PipelineStats {
    const { first, prev, last } = this;
    const uptime_s = Math.max(0, Math.round((now - this.playingSince.getTime()) / 1000));
    const dt = prev && last ? (last.atMs - prev.atMs) / 1000 : 0;
    const span = first && last ? (last.atMs - first.atMs) / 1000 : 0;
    const rate = (a: number | null | undefined, b: number | null | undefined, secs: number, scale = 1) =>
      (a === null || a === undefined || b === null || b === undefined ? null : secs > 0 ? round(((b - a) * scale) / secs) : 0);
    const kbit = 8 / 1000;
    const stats: PipelineStats = {
      playing_since: this.playingSince.toISOString(),
      uptime_s,
      output: {
        frames: last?.frames ?? null,
        bytes: last?.bytes ?? null,
        fps: rate(prev?.frames, last?.frames, dt),
        bitrate_kbps: rate(prev?.bytes, last?.bytes, dt, kbit),
        fps_avg: rate(first?.frames, last?.frames, span),
        bitrate_kbps_avg: rate(first?.bytes, last?.bytes, span, kbit),
      },
      source: last && last.sourceFrames !== null
        ? { frames: last.sourceFrames, fps: rate(prev?.sourceFrames, last.sourceFrames, dt) ?? 0 }
        : null,
      dropped_frames: last?.qosDropped ?? 0,
      rate_adjusted: last && last.rateDropped !== null && last.rateDuplicated !== null
        ? { dropped: last.rateDropped, duplicated: last.rateDuplicated } : null,
      latency_ms: last?.latencyNs == null ? null : round(last.latencyNs / 1e6),
      host_restarts: counters.host_restarts,
      source_reconnects: counters.source_reconnects,
      last_error: counters.last_error,
    };
    if (last && last.inputs.length) {
      stats.inputs = last.inputs.map((frames, index) => {
        const fps = prev && prev.inputs.length > index ? rate(prev.inputs[index], frames, dt) ?? 0 : 0;
        return { index, fps, live: fps > 0 };
      });
    }
    if (last && last.rtspClients !== null) stats.rtsp_clients = last.rtspClients;
    if (last?.ipcDropped !== undefined) stats.ipc_dropped = last.ipcDropped;
    if (last?.serviceEventsDropped !== undefined) stats.service_events_dropped = last.serviceEventsDropped;
    if (last?.transport) stats.transport = last.transport;
    return stats;
  }
}

/**
 * GStreamer's generic report from an upstream element whose push failed because something downstream failed
 * (GST_ELEMENT_FLOW_ERROR): a consequence, never the cause, when the element that failed has its own message.
 */
export function isFlowConsequence(message: string): boolean {
  return message.startsWith('Internal data stream error');
}

export interface HealthInput {
  now: number;
  /** The operator wants it playing (and it is not on demand). */
  wanted: boolean;
  /** The message of the last start the operator asked for, when it failed; cleared by stop, play or update. */
  startFailure: string | null;
  /** When it became wanted playing (ms). */
  wantedSince: number | null;
  playing: boolean;
  window: StatsWindow | null;
  lastError: { message: string; at: string } | null;
  /** Times (ms) of recent errors, restarts and failed starts. */
  failures: readonly number[];
  /** The configured frame rate, where the pipeline encodes. */
  fps: number | null;
}

export interface HealthJudgement {
  health: Health;
  reason: string | null;
}

/** The health of one pipeline now (rules in docs/api.md, "Health"). */
export function judgeHealth(h: HealthInput): HealthJudgement {
  if (h.startFailure) return { health: 'failing', reason: h.startFailure };
  if (!h.wanted) return { health: 'ok', reason: null };
  const lastErrorAt = h.lastError ? Date.parse(h.lastError.at) : null;
  const recent = h.failures.filter((t) => t > h.now - FAILURE_WINDOW_MS).length;
  if (recent >= FAILURES_FOR_FAILING) {
    const count = `${recent} failures in the last ${FAILURE_WINDOW_MS / 1000} s`;
    return { health: 'failing', reason: h.lastError ? `${h.lastError.message} (${count})` : count };
  }
  const measured = !h.playing || !h.window || h.window.measuresFlow();
  if (measured) {
    const flowAt = Math.max(h.window?.lastFlowAt() ?? 0, h.wantedSince ?? 0);
    const silentMs = h.now - flowAt;
    if (silentMs >= STALL_MS) {
      // A recent error is the likely cause (a muxer that refused the stream), so it is the reason.
      const why = lastErrorAt !== null && lastErrorAt > h.now - FAILURE_WINDOW_MS
        ? h.lastError!.message : `nothing has reached the output for ${Math.floor(silentMs / 1000)} s`;
      return { health: 'failing', reason: why };
    }
  }
  if (!h.playing || !h.window) return { health: 'ok', reason: null };
  if (h.now - h.window.playingSince.getTime() < SETTLE_MS) return { health: 'ok', reason: null };
  if (h.window.droppedSince(h.now - DROP_WINDOW_MS)) return { health: 'degraded', reason: `frames dropped in the last ${DROP_WINDOW_MS / 1000} s` };
  const fps = h.window.fps();
  if (h.fps !== null && fps !== null && fps < h.fps - 1) {
    return { health: 'degraded', reason: `running at ${round(fps)} fps of the configured ${h.fps}` };
  }
  return { health: 'ok', reason: null };
}
