/**
 * Whether the explorer runs: only when a port is configured (--explorer-port, 0 = off) AND the setting
 * `explorer_enabled` is true. The setting is followed live: turning it on starts the explorer, turning it off
 * stops it (open connections are closed). Changes are applied one at a time, in order.
 */
import type { Logger } from 'pino';

export interface Startable {
  listen(): Promise<number>;
  close(): Promise<void>;
}

/** Pure: the rule above. */
export function explorerWanted(port: number, enabled: boolean): boolean {
  return port > 0 && enabled;
}

export class ExplorerSwitch {
  private running?: Startable;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly port: number, private readonly create: () => Startable, private readonly log: Logger) {}

  /** Brings the explorer to the wanted state; resolves when it is there (errors are logged, not thrown). */
  apply(enabled: boolean): Promise<void> {
    this.chain = this.chain.then(async () => {
      const want = !this.closed && explorerWanted(this.port, enabled);
      if (want && !this.running) {
        const server = this.create();
        try {
          await server.listen();
          this.running = server;
        } catch (err) {
          this.log.error({ err: (err as Error).message, port: this.port }, 'API explorer could not start');
        }
      } else if (!want && this.running) {
        const server = this.running;
        this.running = undefined;
        await server.close();
      }
    });
    return this.chain;
  }

  /** Stops the explorer for good (service shutdown). */
  close(): Promise<void> {
    this.closed = true;
    return this.apply(false);
  }
}
