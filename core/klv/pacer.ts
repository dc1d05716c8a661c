/**
 * The KLV stream's pacer, run by the engine host next to its pipeline (docs/klv.md). GStreamer 1.22's mpegtsmux
 * outputs a buffer only when every input has one queued and never times an idle input out; it then releases video
 * only up to the PTS of the KLV input's latest buffer. So for such an output (`ahead`) the host pushes an ST 0601
 * packet every KLV_PERIOD_MS, stamped KLV_LEAD_NS ahead of the pipeline's running time: the KLV input always holds a
 * buffer later than any video frame arriving, and the video leaves the muxer at once. An output that waits for
 * nothing (RTP: each stream is payloaded on its own) gets its packets stamped now, so a sink that syncs sends them
 * when they are due rather than holding the video behind them.
 *
 * What each packet says: the pipeline's geolocation when it has one; otherwise the source's own KLV (relay()) while
 * it arrives, as it came; otherwise a minimal local set (time stamp and version). Pure apart from the timer; the
 * clock, the push and wall time are injected.
 */
import { encodeSt0601 } from './st0601';

/** 10 Hz: one 188-byte TS packet per push, about 15 kbit/s (docs/klv.md has the measurements). */
export const KLV_PERIOD_MS = 100;
/** How far ahead of now each packet is stamped: above the period plus the host's worst timer delay. */
export const KLV_LEAD_NS = 300_000_000;
/** How long the source's last packet stands for the source's KLV: a source at 1 Hz stays relayed through jitter. */
export const KLV_RELAY_HOLD_MS = 3000;

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

export interface PacerOptions {
  /** Stamp ahead of the running time by KLV_LEAD_NS and repeat the source's packet every period (a waiting muxer). */
  ahead: boolean;
}

/** The packet for one tick: the position (if any) at the wall time its PTS stands for (`leadNs` from now). */
export function pacedPacket(position: KlvPosition | null, nowMs: number, leadNs = KLV_LEAD_NS): Buffer {
  return encodeSt0601({ timestampUs: BigInt(Math.round(nowMs + leadNs / 1e6)) * 1000n, ...(position ?? {}) });
}

export class KlvPacer {
  private position: KlvPosition | null;
  private timer: NodeJS.Timeout | null = null;
  private lastPts = -1;
  private relayed: { packet: Buffer; at: number; pushedAt: number } | null = null;
  private readonly leadNs: number;

  constructor(private readonly deps: PacerDeps, position: KlvPosition | null, private readonly opts: PacerOptions = { ahead: true }) {
    this.position = position;
    this.leadNs = opts.ahead ? KLV_LEAD_NS : 0;
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

  /**
   * One KLV packet of the source, carried as it came (its bytes; the PTS is the pacer's) unless the pipeline has a
   * geolocation of its own. It goes out at once; an `ahead` output repeats it every period while it is the latest.
   */
  relay(packet: Buffer): void {
    const now = this.deps.now();
    this.relayed = { packet, at: now, pushedAt: -Infinity };
    if (this.timer && !this.position && this.pushAt(packet)) this.relayed.pushedAt = now;
  }

  /**
   * The source is between two plays (a looped file's reader rebuilt at its end): its last packet stands for it until
   * resume(), however long the rebuild takes, as the video repeats its last frame meanwhile.
   */
  hold(): void {
    if (this.relayed) this.relayed.at = Infinity;
  }

  /** The source plays again: its last packet stands for it KLV_RELAY_HOLD_MS more, as after any packet. */
  resume(): void {
    if (this.relayed && this.relayed.at === Infinity) this.relayed.at = this.deps.now();
  }

  stop(): void {
    if (this.timer) {
      clearInterval(this.timer);
      clearTimeout(this.timer);
    }
    this.timer = null;
  }

  /** One period's push; false when the pipeline has no clock yet or the appsrc refused it. */
  tick(): boolean {
    const now = this.deps.now();
    const relayed = !this.position && this.relayed && now - this.relayed.at <= KLV_RELAY_HOLD_MS ? this.relayed : null;
    // While the source sends, its packets go out as they come; an `ahead` output gets the latest again only when
    // none came for a period (a source slower than 10 Hz), so a 10 Hz source stays 10 Hz.
    if (relayed && (!this.opts.ahead || now - relayed.pushedAt < KLV_PERIOD_MS)) return this.deps.runningTime() >= 0;
    if (!relayed) return this.pushAt(pacedPacket(this.position, now, this.leadNs));
    if (!this.pushAt(relayed.packet)) return false;
    relayed.pushedAt = now;
    return true;
  }

  private pushAt(packet: Buffer): boolean {
    const rt = this.deps.runningTime();
    if (rt < 0) return false;
    // PTS never goes backwards (a set() and a tick in the same ms).
    const pts = Math.max(rt + this.leadNs, this.lastPts + 1);
    try {
      this.deps.push(packet, pts);
    } catch {
      return false;
    }
    this.lastPts = pts;
    return true;
  }
}
