/**
 * Paces the live changes of one running encoder whose every change is costly (CodecPlugin.liveChangeIntervalMs).
 *
 * Why: x265enc 1.22 applies a bitrate change by closing libx265 and opening it again. Each re-open starts the
 * stream over (a keyframe with its parameter sets, the rate control from nothing) and leaves memory behind in
 * libx265 3.5 (about 1.2 kB it never frees, 3–4 kB of RSS with the pages it pins; docs/operations.md, "Memory over
 * weeks"). An operator's controller that sets the rate every few seconds would therefore grow the host without
 * bound in proportion to its request rate. Paced, at most one change reaches the encoder per interval: the first
 * at once, any inside the interval held and the latest value of each property applied when it ends. The cost per
 * hour is then bounded by the interval, not by the callers.
 *
 * One pacer serves one running pipeline (the manager keys them by the composed pipeline, so a rebuild or a restart
 * starts afresh with the definition's values, and what an ended run's pacer still holds goes to a flush that finds
 * the run gone). It only decides when; the caller applies.
 */
import type { LiveChange } from '../sdk';

/** The clock and timers a pacer uses; a test gives it a fake one. */
export interface PacerClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
}

const realClock: PacerClock = {
  // Date.now, not performance.now: fake timers in tests move it (a clock step is bounded below: offer()).
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
};

const keyOf = (c: LiveChange) => `${c.element}\0${c.property}`;

export class LivePacer {
  private lastAt = -Infinity;
  private readonly pending = new Map<string, LiveChange>();
  /** What the encoder was last given, by element and property: a held change back to it re-opens nothing. */
  private readonly applied = new Map<string, LiveChange['value']>();
  private timer: unknown = null;

  /** flush applies held changes when their interval ends (the caller's errors are its own to report). */
  constructor(
    private readonly intervalMs: number,
    private readonly flush: (changes: LiveChange[]) => void,
    private readonly clock: PacerClock = realClock,
  ) {}

  /**
   * 'now': the caller applies changes at once (they count as this interval's change); 'held': they will go to
   * flush when the interval ends, replacing any held value of the same property.
   */
  offer(changes: LiveChange[]): 'now' | 'held' {
    const now = this.clock.now();
    if (this.timer === null && now - this.lastAt >= this.intervalMs) {
      this.lastAt = now;
      for (const c of changes) this.applied.set(keyOf(c), c.value);
      return 'now';
    }
    for (const c of changes) this.pending.set(keyOf(c), c);
    // Clamped: a wall clock stepped back must not hold a change for longer than one interval.
    const wait = Math.min(this.intervalMs, Math.max(0, this.lastAt + this.intervalMs - now));
    if (this.timer === null) this.timer = this.clock.setTimeout(() => this.due(), wait);
    return 'held';
  }

  /** Whether changes are waiting for the interval's end. */
  get holding(): boolean {
    return this.timer !== null;
  }

  private due(): void {
    this.timer = null;
    const changes = [...this.pending.values()].filter((c) => this.applied.get(keyOf(c)) !== c.value);
    this.pending.clear();
    if (!changes.length) return;
    this.lastAt = this.clock.now();
    for (const c of changes) this.applied.set(keyOf(c), c.value);
    this.flush(changes);
  }
}
