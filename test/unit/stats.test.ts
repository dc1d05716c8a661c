/** Statistics and health are pure functions of the engine host's samples and the clock: each rule, golden. */
import { describe, expect, it } from 'vitest';
import type { StatsSample } from '../../core/engine/protocol';
import { isFlowConsequence, judgeHealth, StatsWindow, type HealthInput } from '../../core/pipeline/stats';
import type { PipelineCounters } from '../../core/pipeline/stats-model';

const T0 = Date.parse('2026-11-23T12:00:00.000Z');
const counters: PipelineCounters = { host_restarts: 1, source_reconnects: 2, errors: 3, last_error: null };

function sample(atS: number, o: Partial<StatsSample> = {}): StatsSample {
  return {
    atMs: T0 + atS * 1000, frames: atS * 15, bytes: atS * 100_000, sourceFrames: atS * 15, inputs: [], qosDropped: 0,
    rateDropped: 0, rateDuplicated: 0, latencyNs: 66_666_666, rtspClients: null, ...o,
  };
}

function windowOf(samples: StatsSample[]): StatsWindow {
  const w = new StatsWindow(new Date(T0));
  for (const s of samples) w.add(s);
  return w;
}

describe('StatsWindow.figures', () => {
  it('rates over the last interval and since playing, in kbit/s and fps', () => {
    const w = windowOf([sample(0), sample(1), sample(2, { frames: 29, bytes: 250_000 })]);
    expect(w.figures(T0 + 2500, counters)).toEqual({
      playing_since: '2026-11-23T12:00:00.000Z',
      uptime_s: 3,
      output: { frames: 29, bytes: 250_000, fps: 14, bitrate_kbps: 1200, fps_avg: 14.5, bitrate_kbps_avg: 1000 },
      source: { frames: 30, fps: 15 },
      dropped_frames: 0,
      rate_adjusted: { dropped: 0, duplicated: 0 },
      latency_ms: 66.7,
      host_restarts: 1,
      source_reconnects: 2,
      last_error: null,
    });
  });

  it('null where nothing measures: an advanced description (no frame meter), an on-demand pipeline (no bytes)', () => {
    const adv = windowOf([sample(0, { frames: null, sourceFrames: null, rateDropped: null, rateDuplicated: null }), sample(1, { frames: null, sourceFrames: null, rateDropped: null, rateDuplicated: null })]);
    const f = adv.figures(T0 + 1000, counters);
    expect(f.output.frames).toBeNull();
    expect(f.output.fps).toBeNull();
    expect(f.output.bitrate_kbps).toBe(800);
    expect(f.source).toBeNull();
    expect(f.rate_adjusted).toBeNull();
    const od = windowOf([sample(0, { frames: null, bytes: null, sourceFrames: null, latencyNs: null, rtspClients: 2 })]);
    const g = od.figures(T0, counters);
    expect(g.output).toEqual({ frames: null, bytes: null, fps: null, bitrate_kbps: null, fps_avg: null, bitrate_kbps_avg: null });
    expect(g.rtsp_clients).toBe(2);
    expect(g.latency_ms).toBeNull();
  });

  it('ipc_dropped: what the host measured, absent where it measures nothing (on demand)', () => {
    expect(windowOf([sample(0, { ipcDropped: 0 }), sample(1, { ipcDropped: 42 })]).figures(T0 + 1000, counters).ipc_dropped).toBe(42);
    expect('ipc_dropped' in windowOf([sample(0)]).figures(T0, counters)).toBe(false);
  });

  it('service_events_dropped: what the host measured, on demand too; absent without a service', () => {
    const od = windowOf([sample(0, { frames: null, bytes: null, sourceFrames: null, rtspClients: 1, serviceEventsDropped: 0 }),
      sample(1, { frames: null, bytes: null, sourceFrames: null, rtspClients: 1, serviceEventsDropped: 7 })]);
    expect(od.figures(T0 + 1000, counters).service_events_dropped).toBe(7);
    expect('service_events_dropped' in windowOf([sample(0)]).figures(T0, counters)).toBe(false);
  });

  it('multiview inputs: fps each, live while frames arrive', () => {
    const w = windowOf([sample(0, { inputs: [0, 0] }), sample(1, { inputs: [15, 0] })]);
    expect(w.figures(T0 + 1000, counters).inputs).toEqual([{ index: 0, fps: 15, live: true }, { index: 1, fps: 0, live: false }]);
  });

  it('ignores a sample older than the last (IPC reordering cannot make rates negative)', () => {
    const w = windowOf([sample(0), sample(2), sample(1)]);
    expect(w.figures(T0 + 2000, counters).output.frames).toBe(30);
  });
});

describe('judgeHealth', () => {
  const base = (o: Partial<HealthInput>): HealthInput => ({
    now: T0 + 10_000, wanted: true, startFailure: null, wantedSince: T0, playing: true, window: null, lastError: null, failures: [], fps: 15, ...o,
  });
  const flowing = () => windowOf(Array.from({ length: 10 }, (_, i) => sample(i + 1)));

  it('ok when not wanted playing, whatever else', () => {
    expect(judgeHealth(base({ wanted: false, playing: false }))).toEqual({ health: 'ok', reason: null });
  });

  it('a failed start is failing with its message until the operator acts', () => {
    expect(judgeHealth(base({ wanted: false, playing: false, startFailure: 'the pipeline did not start: x' })))
      .toEqual({ health: 'failing', reason: 'the pipeline did not start: x' });
  });

  it('flowing at the configured rate is ok', () => {
    expect(judgeHealth(base({ window: flowing() }))).toEqual({ health: 'ok', reason: null });
  });

  it('nothing reached the output for 3 s: failing, the recent error as the reason when there is one', () => {
    const w = windowOf([sample(1), sample(2), sample(3), sample(4, { bytes: 300_000 }), sample(5, { bytes: 300_000 })]);
    expect(judgeHealth(base({ now: T0 + 6000, window: w }))).toEqual({ health: 'failing', reason: 'nothing has reached the output for 3 s' });
    expect(judgeHealth(base({ now: T0 + 5900, window: w })).health).toBe('ok');
    const lastError = { message: 'Could not multiplex stream.', at: new Date(T0 + 3500).toISOString() };
    expect(judgeHealth(base({ now: T0 + 6000, window: w, lastError }))).toEqual({ health: 'failing', reason: 'Could not multiplex stream.' });
  });

  it('a container header alone is not flow', () => {
    const w = windowOf([sample(1, { bytes: 48 }), sample(2, { bytes: 48 }), sample(3, { bytes: 48 })]);
    expect(judgeHealth(base({ now: T0 + 3500, wantedSince: T0, window: w })).health).toBe('failing');
  });

  it('wanted but not playing for 3 s (restarting, or a start still waiting for data): failing', () => {
    expect(judgeHealth(base({ now: T0 + 2999, playing: false })).health).toBe('ok');
    expect(judgeHealth(base({ now: T0 + 3000, playing: false })).reason).toBe('nothing has reached the output for 3 s');
  });

  it('keeps failing: three failures in 30 s, even flowing between them', () => {
    const lastError = { message: 'boom', at: new Date(T0 + 9000).toISOString() };
    const failures = [T0 + 1000, T0 + 5000, T0 + 9000];
    expect(judgeHealth(base({ window: flowing(), lastError, failures }))).toEqual({ health: 'failing', reason: 'boom (3 failures in the last 30 s)' });
    const later = windowOf(Array.from({ length: 10 }, (_, i) => sample(i + 22)));
    expect(judgeHealth(base({ now: T0 + 31_001, window: later, lastError, failures })).health).toBe('ok');
  });

  it('degraded: QoS drops in the last 5 s, or below the configured rate', () => {
    const dropped = windowOf([sample(6), sample(7), sample(8), sample(9, { qosDropped: 4 }), sample(10, { qosDropped: 4 })]);
    expect(judgeHealth(base({ window: dropped }))).toEqual({ health: 'degraded', reason: 'frames dropped in the last 5 s' });
    const slow = windowOf([sample(8), sample(9), sample(10, { frames: 9 * 15 + 10 })]);
    expect(judgeHealth(base({ window: slow }))).toEqual({ health: 'degraded', reason: 'running at 10 fps of the configured 15' });
    const justUnder = windowOf([sample(8), sample(9), sample(10, { frames: 9 * 15 + 14 })]);
    expect(judgeHealth(base({ window: justUnder })).health).toBe('ok');
  });

  it('no degraded judgement in the first 3 s of a run', () => {
    const w = new StatsWindow(new Date(T0 + 8000));
    for (const s of [sample(8), sample(9), sample(10, { frames: 9 * 15 + 5 })]) w.add(s);
    expect(judgeHealth(base({ window: w })).health).toBe('ok');
  });
});

it('GStreamer\'s generic flow error is a consequence', () => {
  expect(isFlowConsequence('Internal data stream error.')).toBe(true);
  expect(isFlowConsequence('Could not multiplex stream.')).toBe(false);
});
