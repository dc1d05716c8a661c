/**
 * The spare engine host (config spareEngineHost, docs/engine-host.md "The spare host"): one host kept started and
 * idle, GStreamer loaded and its plugins registered, handed to the next pipeline that needs a host, so that a
 * create's start path holds the pipeline and nothing else. The next spare is started once the one handed over has
 * answered its first command (the play, mostly): spawning a process blocks the event loop for milliseconds, and a
 * new host's start takes a core for some more; neither should sit on the start the operator waits for.
 *
 * A spare that dies while idle (or never says ready) is replaced after a wait that doubles from retryBaseMs to
 * retryMaxMs, so a host that cannot start (a broken install, a memory ceiling too low) does not spin a core.
 */
import type { Logger } from 'pino';

/** The next spare is started this long after a hand-over at the latest (a host handed over and given no command). */
const REFILL_AT_LATEST_MS = 1000;

/** What the pool needs of a host: EngineHostProcess, or a test's fake. */
export interface SpareableHost {
  readonly pid: number | undefined;
  readonly alive: boolean;
  /** Starts the process as a spare; rejects when it does not say ready. */
  warmUp(): Promise<void>;
  /** The pipeline it is handed to; its start() then names it instead of spawning. */
  assign(pipelineId: string): void;
  close(): Promise<void>;
  once(event: 'exit', listener: () => void): this;
  off(event: 'exit', listener: () => void): this;
  /** `answered`: the host answered a command (its op), or it failed for want of a host. */
  on(event: 'answered', listener: (op: string) => void): this;
  off(event: 'answered', listener: (op: string) => void): this;
}

export interface SpareHostOptions {
  retryBaseMs: number;
  retryMaxMs: number;
  log: Logger;
}

export class SpareHosts<H extends SpareableHost> {
  private spare: H | null = null;
  private onSpareExit: (() => void) | null = null;
  /** Spares in a row that died before they were handed over. */
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  /** make(): a new host, not yet started. */
  constructor(private readonly make: () => H, private readonly opts: SpareHostOptions) {}

  /** Starts the spare (the service calls it once; every hand-over starts the next). */
  fill(): void {
    if (this.closed || this.spare || this.retryTimer) return;
    const host = this.make();
    this.spare = host;
    const onExit = () => {
      if (this.spare !== host) return;
      this.spare = null;
      this.onSpareExit = null;
      this.failures += 1;
      const delay = Math.min(this.opts.retryBaseMs * 2 ** (this.failures - 1), this.opts.retryMaxMs);
      this.opts.log.warn({ pid: host.pid, failures: this.failures, retryInMs: delay }, 'the spare engine host ended while idle; another is started after a wait');
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.fill();
      }, delay);
      this.retryTimer.unref();
    };
    this.onSpareExit = onExit;
    host.once('exit', onExit);
    host.warmUp().then(() => {
      if (this.spare === host) this.failures = 0;
    }, (err: Error) => this.opts.log.warn({ err: err.message }, 'the spare engine host did not start'));
  }

  /**
   * The spare for pipelineId, started or still starting; null when there is none (a pipeline's own host is spawned
   * then, as without a spare). The next spare is started when this one has answered its first command after its name.
   */
  take(pipelineId: string): H | null {
    const host = this.spare;
    if (!host?.alive) return null;
    this.spare = null;
    if (this.onSpareExit) host.off('exit', this.onSpareExit);
    this.onSpareExit = null;
    host.assign(pipelineId);
    const refill = () => {
      clearTimeout(latest);
      host.off('answered', onAnswered);
      host.off('exit', refill);
      // After what the answer wakes (the API's reply to the operator).
      setImmediate(() => this.fill());
    };
    const onAnswered = (op: string) => {
      if (op !== 'name') refill();
    };
    const latest = setTimeout(refill, REFILL_AT_LATEST_MS);
    latest.unref();
    host.on('answered', onAnswered);
    host.once('exit', refill);
    return host;
  }

  /** The spare's pid (null: none now): for the operator's view and tests. */
  get pid(): number | null {
    return this.spare?.alive ? this.spare.pid ?? null : null;
  }

  /** No more spares; the one there is ends. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const host = this.spare;
    this.spare = null;
    if (host && this.onSpareExit) host.off('exit', this.onSpareExit);
    this.onSpareExit = null;
    await host?.close();
  }
}
