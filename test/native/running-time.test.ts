// Pipeline.runningTime() (native/src/pipeline.c) against real GStreamer: -1 before PLAYING, then the clock's running
// time, which a buffer pushed with that PTS carries through to an appsink.
import { describe, expect, it } from 'vitest';
import { livePipelines, native, sleep } from '../helpers/native';

const live = livePipelines();

describe('runningTime', () => {
  it('is -1 until the pipeline goes to PLAYING, then follows the clock', async () => {
    const p = new native.Pipeline('videotestsrc is-live=true ! fakesink', () => undefined);
    live.push(p);
    expect(p.runningTime()).toBe(-1);
    await p.setState('paused', 5000);
    expect(p.runningTime()).toBe(-1);
    await p.setState('playing', 5000);
    const a = p.runningTime();
    const t0 = performance.now();
    await sleep(300);
    const b = p.runningTime();
    const elapsedNs = (performance.now() - t0) * 1e6;
    expect(a).toBeGreaterThanOrEqual(0);
    // The system clock and Node's monotonic clock advance together (to a few ms of scheduling).
    expect(Math.abs(b - a - elapsedNs)).toBeLessThan(20e6);
  });

  it('stamps a pushed buffer in the pipeline\'s running time: the appsink gets that PTS', async () => {
    const samples: number[] = [];
    const p = new native.Pipeline(
      'appsrc name=in is-live=true format=time caps=application/x-test ! appsink name=out sync=false',
      (m) => { if (m.type === 'sample') samples.push(m.pts); },
    );
    live.push(p);
    p.watchSink('out');
    const playing = p.setState('playing', 5000);
    let rt = -1;
    while ((rt = p.runningTime()) < 0) await sleep(2);
    p.pushBuffer('in', Buffer.from('x'), rt + 250e6);
    await playing;
    for (let i = 0; i < 100 && !samples.length; i++) await sleep(10);
    expect(samples[0]).toBe(rt + 250e6);
  });

  it('throws NG_ERR_DESTROYED after destroy', () => {
    const p = new native.Pipeline('fakesrc ! fakesink', () => undefined);
    p.destroy();
    let code = 'none';
    try { p.runningTime(); } catch (e) { code = (e as { code: string }).code; }
    expect(code).toBe('NG_ERR_DESTROYED');
  });
});
