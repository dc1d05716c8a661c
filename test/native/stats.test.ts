// The addon's measuring (native/src/stats.c) against real GStreamer: buffer counters on named pads that agree with
// what an appsink receives, the leaf sinks, QoS drops read from real QoS messages, and the latency query.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type * as Native from '../../native';

const native: typeof Native = createRequire(__filename)(join(__dirname, '../../native'));
const live: Native.Pipeline[] = [];
beforeAll(() => native.init());
afterEach(() => {
  for (const p of live.splice(0)) p.destroy();
});

function pipeline(description: string, onMessage: (m: Native.BusMessage) => void = () => undefined): Native.Pipeline {
  const p = new native.Pipeline(description, onMessage);
  live.push(p);
  return p;
}

describe('buffer counters', () => {
  it('count every buffer and byte that passes a pad: the same as an appsink receives', async () => {
    let samples = 0;
    let bytes = 0;
    const p = pipeline('videotestsrc num-buffers=20 ! video/x-raw,format=I420,width=64,height=48 ! queue name=q ! appsink name=out sync=false', (m) => {
      if (m.type === 'sample') {
        samples += 1;
        bytes += m.data.length;
      }
    });
    p.watchSink('out');
    p.countBuffers('q', 'sink');
    p.countBuffers('q', 'sink'); // idempotent: one probe, not two
    p.countBuffers('out', 'sink');
    await p.setState('playing', 5000);
    const deadline = Date.now() + 5000;
    while (samples < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(samples).toBe(20);
    expect(p.counted('q', 'sink')).toEqual({ buffers: 20, bytes: 20 * 64 * 48 * 1.5 });
    expect(p.counted('out', 'sink')).toEqual({ buffers: 20, bytes });
  });

  it('refuses what it cannot count, with coded errors', () => {
    const p = pipeline('videotestsrc name=src ! fakesink name=sink');
    expect(() => p.countBuffers('nope', 'sink')).toThrow(expect.objectContaining({ code: 'NG_ERR_NO_ELEMENT' }));
    expect(() => p.countBuffers('src', 'sink')).toThrow(expect.objectContaining({ code: 'NG_ERR_ARG' }));
    expect(() => p.counted('sink', 'sink')).toThrow(expect.objectContaining({ code: 'NG_ERR_ARG' }));
    p.destroy();
    expect(() => p.counted('sink', 'sink')).toThrow(expect.objectContaining({ code: 'NG_ERR_DESTROYED' }));
  });

  it('counts request pads by name (a compositor\'s inputs)', async () => {
    const p = pipeline('compositor name=mix ! video/x-raw,width=64,height=48 ! fakesink name=out '
      + 'videotestsrc num-buffers=10 ! video/x-raw,width=32,height=24 ! mix.sink_0 '
      + 'videotestsrc num-buffers=10 ! video/x-raw,width=32,height=24 ! mix.sink_1');
    p.countBuffers('mix', 'sink_0');
    p.countBuffers('mix', 'sink_1');
    await p.setState('playing', 5000);
    const deadline = Date.now() + 5000;
    while (p.counted('mix', 'sink_1').buffers < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(p.counted('mix', 'sink_0').buffers).toBe(10);
    expect(p.counted('mix', 'sink_1').buffers).toBe(10);
  });
});

describe('sinks, QoS and latency', () => {
  it('lists the leaf sinks, inside bins too, and no bin', () => {
    const p = pipeline('videotestsrc ! tee name=t ! queue ! fakesink name=a t. ! queue ! bin. ( name=bin queue ! fakesink name=b )');
    expect(p.sinks().sort()).toEqual(['a', 'b']);
  });

  it('sums the dropped counts of real QoS messages: a sink that syncs, fed late frames', async () => {
    // Each frame costs more than its duration on the way (identity sleep-time), so the synced sink receives it late and
    // posts QoS with its running total of dropped buffers.
    const p = pipeline('videotestsrc is-live=true ! video/x-raw,framerate=30/1,width=64,height=48 ! identity sleep-time=60000 ! fakesink name=s sync=true qos=true max-lateness=1000000');
    await p.setState('playing', 5000);
    const deadline = Date.now() + 8000;
    while (p.qosDropped() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(p.qosDropped()).toBeGreaterThan(0);
  });

  it('answers the latency upstream of a sink: a live source and an encoder', async () => {
    const p = pipeline('videotestsrc is-live=true ! video/x-raw,framerate=15/1,width=64,height=48 ! x264enc tune=zerolatency ! fakesink name=s sync=false');
    await p.setState('playing', 5000);
    const l = p.latency('s');
    expect(l).not.toBeNull();
    expect(l!.live).toBe(true);
    // At least the live source's one frame (66.7 ms at 15 fps).
    expect(l!.minNs).toBeGreaterThanOrEqual(66_000_000);
  });
});
