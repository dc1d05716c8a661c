// The KLV pacer (core/klv/pacer.ts) with an injected clock: PTS ahead of the running time, never backwards, nothing
// before the pipeline has a clock, a new position at once, the minimal local set without one.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KLV_LEAD_NS, KLV_PERIOD_MS, KlvPacer } from '../../core/klv/pacer';
import { decodeSt0601 } from '../../core/klv/st0601';

afterEach(() => vi.useRealTimers());

function rig(rt: { value: number }, refuse = { value: false }) {
  const pushed: Array<{ pts: number; d: ReturnType<typeof decodeSt0601> }> = [];
  const pacer = new KlvPacer({
    push: (packet, pts) => {
      if (refuse.value) throw new Error('flushing');
      pushed.push({ pts, d: decodeSt0601(packet) });
    },
    runningTime: () => rt.value,
    now: () => 1_700_000_000_000,
  }, { latitude: 48, longitude: 11 });
  return { pacer, pushed };
}

describe('KlvPacer', () => {
  it('waits for a clock, then pushes every period stamped KLV_LEAD_NS ahead', () => {
    vi.useFakeTimers();
    const rt = { value: -1 };
    const { pacer, pushed } = rig(rt);
    pacer.start();
    vi.advanceTimersByTime(50);
    expect(pushed).toEqual([]);
    rt.value = 1_000_000;
    vi.advanceTimersByTime(5);
    expect(pushed).toHaveLength(1);
    expect(pushed[0].pts).toBe(1_000_000 + KLV_LEAD_NS);
    expect(pushed[0].d.latitude).toBeCloseTo(48, 6);
    expect(pushed[0].d.checksumOk).toBe(true);
    // Item 2 names the moment the PTS stands for: now + lead.
    expect(pushed[0].d.timestampUs).toBe(BigInt(1_700_000_000_000 + KLV_LEAD_NS / 1e6) * 1000n);
    vi.advanceTimersByTime(KLV_PERIOD_MS * 3);
    expect(pushed).toHaveLength(4);
    pacer.stop();
    vi.advanceTimersByTime(KLV_PERIOD_MS * 3);
    expect(pushed).toHaveLength(4);
  });

  it('retries while the appsrc refuses, sends a new position at once, never stamps backwards', () => {
    vi.useFakeTimers();
    const rt = { value: 5_000_000 };
    const refuse = { value: true };
    const { pacer, pushed } = rig(rt, refuse);
    pacer.start();
    vi.advanceTimersByTime(20);
    expect(pushed).toEqual([]);
    refuse.value = false;
    vi.advanceTimersByTime(5);
    expect(pushed).toHaveLength(1);
    pacer.set(null);
    expect(pushed).toHaveLength(2);
    expect(pushed[1].pts).toBeGreaterThan(pushed[0].pts);
    expect(pushed[1].d.latitude).toBeUndefined();
    expect(pushed[1].d.version).toBe(19);
    expect(pushed[1].d.checksumOk).toBe(true);
    pacer.stop();
  });
});
