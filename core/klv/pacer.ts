/**
 * The KLV stream's pacer, run by the engine host next to its pipeline (docs/klv.md). GStreamer 1.22's mpegtsmux
 * outputs a buffer only when every input has one queued and never times an idle input out; it then releases video
 * only up to the PTS of the KLV input's latest buffer. So the host pushes an ST 0601 packet every KLV_PERIOD_MS,
 * stamped KLV_LEAD_NS ahead of the pipeline's running time: the KLV input always holds a buffer later than any video
 * frame arriving, and the video leaves the muxer at once. Without a position the packet is a minimal local set
 * (time stamp and version). Pure apart from the timer; the clock, the push and wall time are injected.
 */
import { encodeSt0601 } from './st0601';

/** 10 Hz: one 188-byte TS packet per push, about 15 kbit/s (docs/klv.md has the measurements). */
export const KLV_PERIOD_MS = 100;
/** How far ahead of now each packet is stamped: above the period plus the host's worst timer delay. */
export const KLV_LEAD_NS = 300_000_000;

/** What ST 0601 carries of a geolocation; the core converts MGRS before it sends one. */
export interface KlvPosition {
  latitude: number;
  longitude: number;
  altitude?: number;
  heading?: number;
}

export interface PacerDeps {
  /** Pushes one packet with its PTS (ns); throws when the appsrc refuses it (not yet started, stopping). */
  push(packet: Buffer, ptsNs: number): void;
  /** The pipeline's running time, ns; negative until it has a clock. */
  runningTime(): number;
  /** Wall-clock ms (ST 0601 item 2 is UTC microseconds). */
  now(): number;
}

/** The packet for one tick: the position (if any) at the wall time its PTS stands for. */
export function pacedPacket(position: KlvPosition | null, nowMs: number): Buffer {
  return encodeSt0601({ timestampUs: BigInt(Math.round(nowMs + KLV_LEAD_NS / 1e6)) * 1000n, ...(position ?? {}) });
}

export class KlvPacer {
  private position: KlvPosition | null;
  private timer: NodeJS.Timeout | null = null;
  private lastPts = -1;

  constructor(private readonly deps: PacerDeps, position: KlvPosition | null) {
    this.position = position;
  }

  /** Starts pushing: every few ms until the pipeline has a clock (it cannot reach PLAYING before), then every period. */
  start(): void {
    this.stop();
    const waitForClock = () => {
      if (this.tick()) this.timer = setInterval(() => this.tick(), KLV_PERIOD_MS);
      else this.timer = setTimeout(waitForClock, 5);
    };
    waitForClock();
  }

  /** A new position (null: none) goes out at once, not a period later. */
  set(position: KlvPosition | null): void {
    this.position = position;
    if (this.timer) this.tick();
  }

  stop(): void {
    if (this.timer) {
      clearInterval(this.timer);
      clearTimeout(this.timer);
    }
    this.timer = null;
  }

  /** One push; false when the pipeline has no clock yet or the appsrc refused it. */
  tick(): boolean {
    const rt = this.deps.runningTime();
    if (rt < 0) return false;
    // PTS never goes backwards (a set() and a tick in the same ms).
    const pts = Math.max(rt + KLV_LEAD_NS, this.lastPts + 1);
    try {
      this.deps.push(pacedPacket(this.position, this.deps.now()), pts);
    } catch {
      return false;
    }
    this.lastPts = pts;
    return true;
  }
}
