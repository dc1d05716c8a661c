// The KLV pacer (core/klv/pacer.ts) for outputs that wait for nothing (RTP: packets stamped when due) and relaying
// the source's own KLV (docs/klv.md): as it came, at once; held and repeated only for an output that waits for KLV;
// the geolocation wins; after KLV_RELAY_HOLD_MS without source packets the pacer's own packets come back.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KLV_LEAD_NS, KLV_PERIOD_MS, KLV_RELAY_HOLD_MS, KlvPacer, type KlvPosition } from '../../core/klv/pacer';
import { decodeSt0601, encodeSt0601 } from '../../core/klv/st0601';

afterEach(() => vi.useRealTimers());

const SOURCE = encodeSt0601({ timestampUs: 1_600_000_000_000_000n, latitude: 10, longitude: 20 });

function rig(ahead: boolean, position: KlvPosition | null = null) {
  const pushed: Array<{ pts: number; packet: Buffer }> = [];
  let wall = 1_700_000_000_000;
  const rt = { value: 1_000_000 };
  const pacer = new KlvPacer({ push: (packet, pts) => pushed.push({ pts, packet }), runningTime: () => rt.value, now: () => wall }, position, { ahead });
  // Wall time and running time move with the fake timers, 10 ms at a time.
  const advance = (ms: number) => {
    for (let t = 0; t < ms; t += 10) {
      wall += 10;
      rt.value += 10e6;
      vi.advanceTimersByTime(10);
    }
  };
  return { pacer, pushed, advance, rt };
}

describe('KlvPacer: stamped when due, relaying the source', () => {
  it('due: stamps at the running time and the time stamp item says now', () => {
    vi.useFakeTimers();
    const { pacer, pushed } = rig(false, { latitude: 1, longitude: 2 });
    pacer.start();
    expect(pushed).toHaveLength(1);
    expect(pushed[0].pts).toBe(1_000_000);
    expect(decodeSt0601(pushed[0].packet).timestampUs).toBe(1_700_000_000_000_000n);
    pacer.stop();
  });

  it('due: a source packet goes out once, as it came, and stops the pacer\'s own until it is stale', () => {
    vi.useFakeTimers();
    const { pacer, pushed, advance } = rig(false);
    pacer.start();
    expect(pushed).toHaveLength(1); // the minimal local set until the source sends
    pacer.relay(SOURCE);
    expect(pushed).toHaveLength(2);
    expect(pushed[1].packet.equals(SOURCE)).toBe(true);
    advance(KLV_RELAY_HOLD_MS);
    expect(pushed).toHaveLength(2); // nothing repeated, nothing of its own while the source is fresh
    advance(KLV_PERIOD_MS);
    expect(pushed).toHaveLength(3);
    expect(decodeSt0601(pushed[2].packet).latitude).toBeUndefined();
    pacer.stop();
  });

  it('ahead: the source packet is repeated each period none came, stamped ahead, PTS never backwards', () => {
    vi.useFakeTimers();
    const { pacer, pushed, advance } = rig(true);
    pacer.start();
    pacer.relay(SOURCE);
    advance(KLV_PERIOD_MS * 3);
    const relayed = pushed.slice(1);
    expect(relayed).toHaveLength(4);
    for (const p of relayed) expect(p.packet.equals(SOURCE)).toBe(true);
    for (let i = 1; i < pushed.length; i++) expect(pushed[i].pts).toBeGreaterThan(pushed[i - 1].pts);
    // Lead ahead of the running time (plus the ns a push in the same instant is moved on by).
    expect(relayed[3].pts - (1_000_000 + KLV_PERIOD_MS * 3 * 1e6 + KLV_LEAD_NS)).toBeGreaterThanOrEqual(0);
    expect(relayed[3].pts - (1_000_000 + KLV_PERIOD_MS * 3 * 1e6 + KLV_LEAD_NS)).toBeLessThan(10);
    pacer.stop();
  });

  it('ahead: a source at the pacer\'s own rate is not doubled', () => {
    vi.useFakeTimers();
    const { pacer, pushed, advance } = rig(true);
    pacer.start();
    advance(35);
    for (let i = 0; i < 10; i++) {
      pacer.relay(SOURCE);
      advance(KLV_PERIOD_MS);
    }
    expect(pushed.filter((p) => p.packet.equals(SOURCE)).length).toBe(10);
    pacer.stop();
  });

  it('a geolocation wins over the source, and null gives the source back', () => {
    vi.useFakeTimers();
    const { pacer, pushed, advance } = rig(true, { latitude: 48, longitude: 11 });
    pacer.start();
    pacer.relay(SOURCE);
    advance(KLV_PERIOD_MS);
    expect(pushed.every((p) => decodeSt0601(p.packet).latitude! > 47)).toBe(true);
    pacer.set(null);
    expect(pushed.at(-1)!.packet.equals(SOURCE)).toBe(true);
    pacer.stop();
  });

  it('held while the source is rebuilt: its last packet stands however long that takes, then KLV_RELAY_HOLD_MS more', () => {
    vi.useFakeTimers();
    const { pacer, pushed, advance } = rig(true);
    pacer.start();
    pacer.relay(SOURCE);
    pacer.hold();
    advance(KLV_RELAY_HOLD_MS * 3);
    const own = (from: number) => pushed.slice(from).filter((p) => !p.packet.equals(SOURCE)).length;
    expect(own(1)).toBe(0);
    pacer.resume();
    const resumed = pushed.length;
    advance(KLV_RELAY_HOLD_MS);
    expect(own(resumed)).toBe(0);
    advance(KLV_PERIOD_MS * 2);
    expect(own(resumed)).toBeGreaterThan(0);
    expect(decodeSt0601(pushed.at(-1)!.packet).latitude).toBeUndefined();
    pacer.stop();
  });

  it('hold before any source packet changes nothing: the pacer\'s own packets go on', () => {
    vi.useFakeTimers();
    const { pacer, pushed, advance } = rig(true);
    pacer.start();
    pacer.hold();
    advance(KLV_PERIOD_MS * 3);
    pacer.resume();
    expect(pushed.length).toBeGreaterThanOrEqual(3);
    expect(pushed.every((p) => decodeSt0601(p.packet).latitude === undefined)).toBe(true);
    pacer.stop();
  });
});
