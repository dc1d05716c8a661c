/**
 * Live changes of a costly encoder are paced (core/pipeline/live-pacer.ts): the pacer alone on a fake clock, then the
 * manager with the real h265 plugin (liveChangeIntervalMs 30 s) over fake engine hosts, counting the `set` commands a
 * burst of bitrate PATCHes sends. The media side of a held change (x265 at the new rate) is in
 * test/lifecycle/patch-paced.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HostCommand } from '../../core/engine/protocol';
import { LivePacer, type PacerClock } from '../../core/pipeline/live-pacer';
import type { LiveChange } from '../../core/sdk';
import { fakeManager, udpBody, type FakeEngineHost } from '../helpers/fake-host';

class FakeClock implements PacerClock {
  t = 0;
  private timers: { at: number; fn: () => void }[] = [];
  now() { return this.t; }
  setTimeout(fn: () => void, ms: number) { const timer = { at: this.t + ms, fn }; this.timers.push(timer); return timer; }
  advance(ms: number) {
    this.t += ms;
    for (const due of this.timers.filter((x) => x.at <= this.t)) {
      this.timers = this.timers.filter((x) => x !== due);
      due.fn();
    }
  }
  get waiting() { return this.timers.map((x) => x.at - this.t); }
}

const rate = (value: number): LiveChange[] => [{ element: 'venc', property: 'bitrate', value }];

describe('LivePacer', () => {
  it('applies the first change at once, holds the rest of the interval and applies only the latest at its end', () => {
    const clock = new FakeClock();
    const flushed: LiveChange[][] = [];
    const pacer = new LivePacer(30_000, (c) => flushed.push(c), clock);
    expect(pacer.offer(rate(400))).toBe('now');
    clock.advance(5_000);
    expect(pacer.offer(rate(500))).toBe('held');
    clock.advance(5_000);
    expect(pacer.offer(rate(600))).toBe('held');
    expect(clock.waiting).toEqual([20_000]);
    clock.advance(19_999);
    expect(flushed).toEqual([]);
    clock.advance(1);
    expect(flushed).toEqual([rate(600)]);
    // The flush counts as the interval's change: the next one is held again for a full interval.
    expect(pacer.offer(rate(700))).toBe('held');
    expect(clock.waiting).toEqual([30_000]);
  });

  it('a change after a quiet interval applies at once', () => {
    const clock = new FakeClock();
    const pacer = new LivePacer(30_000, () => undefined, clock);
    expect(pacer.offer(rate(400))).toBe('now');
    clock.advance(30_000);
    expect(pacer.offer(rate(500))).toBe('now');
  });

  it('held changes back to the applied value re-open nothing', () => {
    const clock = new FakeClock();
    const flushed: LiveChange[][] = [];
    const pacer = new LivePacer(30_000, (c) => flushed.push(c), clock);
    pacer.offer(rate(400));
    pacer.offer(rate(300));
    pacer.offer(rate(400));
    clock.advance(30_000);
    expect(flushed).toEqual([]);
    expect(pacer.holding).toBe(false);
  });

  it('a wall clock stepped back holds a change for one interval at most', () => {
    const clock = new FakeClock();
    const flushed: LiveChange[][] = [];
    const pacer = new LivePacer(30_000, (c) => flushed.push(c), clock);
    clock.t = 1_000_000;
    pacer.offer(rate(400));
    clock.t = 0;
    expect(pacer.offer(rate(500))).toBe('held');
    expect(clock.waiting).toEqual([30_000]);
  });
});

describe('bitrate PATCHes of a running H.265 pipeline (manager, fake hosts)', () => {
  let t: ReturnType<typeof fakeManager>;
  beforeEach(() => {
    vi.useFakeTimers();
    t = fakeManager();
  });
  afterEach(async () => {
    await t.manager.shutdown();
    vi.useRealTimers();
  });

  const sets = (host: FakeEngineHost) => host.commands.filter((c): c is Extract<HostCommand, { op: 'set' }> => c.op === 'set');
  const h265 = (id: string) => udpBody(id, { encoding: { codec: 'h265', bitrate: 300, width: 320, height: 240, fps: 15 } });

  it('one PATCH every 5 s reaches the encoder once every 30 s, each time with the latest rate', async () => {
    await t.manager.create(h265('hevc'));
    const host = t.hosts.latest('hevc')!;
    let bitrate = 300;
    for (let i = 0; i < 12; i++) {
      bitrate = bitrate === 300 ? 400 : 300;
      const view = await t.manager.patch('hevc', { encoding: { bitrate: bitrate + i } });
      // The definition (and so every response and GET) says the new rate at once.
      expect(view.encoding?.bitrate).toBe(bitrate + i);
      await vi.advanceTimersByTimeAsync(5_000);
    }
    // 60 s: the first change at once, then one at 30 s (held since 5 s) and one at 60 s (held since 35 s).
    const values = sets(host).map((s) => s.changes.map((c) => `${c.property}=${c.value}`).join());
    expect(values).toEqual(['bitrate=400', 'bitrate=305', 'bitrate=311']);
    expect(t.manager.get('hevc').state).toBe('playing');
  });

  it('a held change is dropped when the pipeline stops, and the next run starts at the latest rate', async () => {
    await t.manager.create(h265('stopper'));
    const first = t.hosts.latest('stopper')!;
    await t.manager.patch('stopper', { encoding: { bitrate: 400 } });
    await t.manager.patch('stopper', { encoding: { bitrate: 900 } });
    await t.manager.stop('stopper');
    await vi.advanceTimersByTimeAsync(30_000);
    expect(sets(first).map((s) => s.changes[0].value)).toEqual([400]);
    await t.manager.play('stopper');
    const play = [...t.hosts.latest('stopper')!.commands].reverse().find((c) => c.op === 'play') as Extract<HostCommand, { op: 'play' }>;
    expect(play.description).toContain('bitrate=900');
  });

  it('H.264 (x264 changes its rate in the open encoder) applies every PATCH at once', async () => {
    await t.manager.create(udpBody('avc'));
    const host = t.hosts.latest('avc')!;
    for (const bitrate of [600, 700, 800]) await t.manager.patch('avc', { encoding: { bitrate } });
    expect(sets(host).map((s) => s.changes[0].value)).toEqual([600, 700, 800]);
  });
});
