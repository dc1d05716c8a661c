/**
 * Geolocation into a running pipeline's KLV stream: one ST 0601 packet a second while a position is set, and one
 * at once when it changes (design §4). Nothing is sent while there is no position. Pushes are fire-and-forget: a
 * packet that cannot be delivered (the pipeline is stopping) is simply superseded by the next.
 */
import { st0601Packet, toPosition, type Position } from './geolocation';
import type { Geolocation } from '../pipeline/model';

export const KLV_INTERVAL_MS = 1000;

export class KlvInjector {
  private position: Position | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly push: (packet: Buffer) => Promise<unknown>, private readonly now: () => number = Date.now) {}

  /** The packet a pipeline starts with (the muxer needs one before it outputs anything; see host-main prime()). */
  static firstPacket(g: Geolocation | null | undefined, now = Date.now()): Buffer {
    return st0601Packet(g ? toPosition(g) : null, now);
  }

  /** Sets the position (null stops sending) and sends it at once. */
  update(g: Geolocation | null | undefined): void {
    this.position = g ? toPosition(g) : null;
    this.clear();
    if (!this.position) return;
    this.send();
    this.timer = setInterval(() => this.send(), KLV_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    this.position = null;
    this.clear();
  }

  private send(): void {
    if (this.position) void this.push(st0601Packet(this.position, this.now())).catch(() => undefined);
  }

  private clear(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
