/**
 * Snapshots: the current picture of a playing pipeline as a JPEG (GET /svc/pipeline/{id}/snapshot), for the console's
 * thumbnails. They come out of the framegrab branch (branch.ts), run at one frame a second while someone asks and
 * closed again when nobody has asked for a while: no second process, no decode of the output, and no cost while
 * nobody watches.
 */

/** Asked for within this long: the branch keeps producing a picture a second. */
export const SNAPSHOT_LINGER_MS = 10_000;
/** A picture younger than this is the current one. */
export const SNAPSHOT_FRESH_MS = 1500;
/** JPEG quality of snapshots when framegrabs do not set it. */
export const SNAPSHOT_QUALITY = 75;

export class SnapshotSlot {
  private jpeg: Uint8Array | null = null;
  private at = 0;
  private until = 0;
  private waiters: Array<(jpeg: Uint8Array | null) => void> = [];

  /** Someone asked now: snapshots are wanted for SNAPSHOT_LINGER_MS. */
  want(now: number): void {
    this.until = now + SNAPSHOT_LINGER_MS;
  }

  wanted(now: number): boolean {
    return now < this.until;
  }

  put(jpeg: Uint8Array, now: number): void {
    this.jpeg = jpeg;
    this.at = now;
    for (const w of this.waiters.splice(0)) w(jpeg);
  }

  /** The current picture, or the next one to arrive within timeoutMs (null when none comes). */
  current(now: number, timeoutMs: number): Promise<Uint8Array | null> {
    if (this.jpeg && now - this.at < SNAPSHOT_FRESH_MS) return Promise.resolve(this.jpeg);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(null);
      }, timeoutMs);
      const waiter = (jpeg: Uint8Array | null) => {
        clearTimeout(timer);
        resolve(jpeg);
      };
      this.waiters.push(waiter);
    });
  }

  /** The run ended: no picture is current, and nobody waits for one. */
  clear(): void {
    this.jpeg = null;
    for (const w of this.waiters.splice(0)) w(null);
  }
}
