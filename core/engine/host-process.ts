/**
 * The core's side of one engine host: starts it (the Node host or the native one), sends commands, matches replies,
 * and reports events and its death. It knows nothing of pipelines' meaning; the manager decides what a death means.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { engineHostScript, nativeEngineHost } from '../paths';
import { NativeHostCodec } from './native-host';
import type { HostCommand, HostErrorBody, HostEvent, HostMessage } from './protocol';
import { isReply } from './protocol';
import { SpareHosts, type SpareHostOptions } from './spare-host';

/** glibc arenas of every engine host, unless the service's environment sets MALLOC_ARENA_MAX (launch(); the API process has its own, core/process-arenas.ts). */
export const MALLOC_ARENAS = 2;

export class HostCommandError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

export class HostGoneError extends Error {
  readonly code = 'HOST_GONE';
}

/** The narrow seam the manager depends on. */
export interface EngineHost extends EventEmitter {
  readonly pid: number | undefined;
  readonly alive: boolean;
  start(): Promise<void>;
  request<T = unknown>(cmd: HostCommand, timeoutMs?: number): Promise<T>;
  /** Ends the host; resolves when the process has exited. */
  close(): Promise<void>;
  on(event: 'event', listener: (ev: HostEvent) => void): this;
  on(event: 'exit', listener: (info: HostExit) => void): this;
}

/** How a host ended. `hint`: what may explain an unexpected end (its memory ceiling), for the operator. */
export interface HostExit {
  code: number | null;
  signal: string | null;
  expected: boolean;
  hint?: string;
}

/**
 * A spare's argv: room for `--pipeline` and the longest id (64, core/pipeline/schema.ts) where it says `--spare`, so
 * the `name` command can write them over it in place (the process's cmdline is its argv's memory).
 */
const TITLE_ROOM = ' '.repeat(72);

/**
 * How long a command without its own timeout (a property set, a KLV position, a description parsed, a spare named)
 * may go unanswered before the host is killed as hung. Not a setting: these answer in milliseconds, or seconds when
 * a parse loads plugins cold; the wait only tells a hung host from a slow one. Commands that change a pipeline's state
 * pass the configured start and stop timeouts instead.
 */
const REPLY_TIMEOUT_MS = 30_000;

/**
 * How long close() waits after SIGTERM before SIGKILL. Not a setting: the host's own watchdog kills it 3 s after
 * SIGTERM (docs/engine-host.md, "Exit"), so this only catches a host whose watchdog cannot fire (a Node host whose
 * teardown blocks its event loop, a stopped process); a little above 3 s lets the watchdog act first.
 */
const CLOSE_GRACE_MS = 5000;

/** How a failed allocation ends a host: GLib's g_error traps, libc and V8 abort, an unchecked NULL faults. */
const ALLOCATION_FAILURE_SIGNALS = new Set(['SIGTRAP', 'SIGABRT', 'SIGSEGV', 'SIGBUS']);

export type EngineHostFactory = (pipelineId: string) => EngineHost;

/** Which engine host runs a pipeline (config engineHost): the Node one or the native executable. */
export type EngineHostKind = 'node' | 'native';

export class EngineHostProcess extends EventEmitter implements EngineHost {
  private child: ChildProcess | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { op: HostCommand['op']; resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private closing = false;
  /** The native host's JSON-line encoding and the policy it leaves to the core (native-host.ts); null for Node's. */
  private codec: NativeHostCodec | null = null;
  /** A spare's start under way or done (warmUp); the next start() names the host instead of spawning one. */
  private spare: Promise<void> | null = null;
  private adopting = false;

  constructor(
    private pipelineId: string,
    private readonly opts: { startTimeoutMs: number; env?: NodeJS.ProcessEnv; memoryMaxBytes?: number; kind?: EngineHostKind },
  ) {
    super();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get alive(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Starts the host: a spare's (warmUp, core/engine/spare-host.ts) is named for this pipeline, its start already done;
   * otherwise a new process is spawned and said ready. A spare that died before it was named is replaced by a new one here.
   */
  async start(): Promise<void> {
    const spare = this.spare;
    this.spare = null;
    if (spare) {
      this.adopting = true;
      try {
        await spare;
        await this.request({ op: 'name', pipeline: this.pipelineId }, this.opts.startTimeoutMs);
        return;
      } catch (err) {
        if (!(err instanceof HostGoneError)) throw err;
      } finally {
        this.adopting = false;
      }
    }
    return this.launch(['--pipeline', this.pipelineId]);
  }

  /**
   * Starts the process as a spare, with no pipeline yet: its argv leaves room for the `--pipeline <id>` the `name`
   * command writes over it, so `ps` shows which pipeline a host serves as for any other host.
   */
  warmUp(): Promise<void> {
    this.spare = this.launch(['--spare', TITLE_ROOM]);
    return this.spare;
  }

  /** Which pipeline the host is for: set when a spare is handed to one (before start). */
  assign(pipelineId: string): void {
    this.pipelineId = pipelineId;
  }

  private launch(args: string[]): Promise<void> {
    this.closing = false;
    // Two malloc arenas, not glibc's 8 per core: every pipeline start brings new streaming threads, each of which
    // would otherwise take an arena of its own and keep its freed pages, so a host's RSS climbed with every
    // rebuild, stop/play and RTSP session before levelling off (docs/operations.md, "Memory over weeks").
    const env = { ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? String(MALLOC_ARENAS), ...this.opts.env, GST_DEBUG: process.env.GST_DEBUG ?? '0' };
    this.codec = this.opts.kind === 'native' ? new NativeHostCodec() : null;
    const codec = this.codec;
    const child = codec
      ? spawnNative(args, this.opts.memoryMaxBytes, env)
      : fork(engineHostScript, args, { ...ceiling(this.opts.memoryMaxBytes), serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env });
    this.child = child;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new HostGoneError(`engine host for ${this.pipelineId} did not start in time`));
      }, this.opts.startTimeoutMs);
      child.on('message', (raw: HostMessage) => {
        const msg = codec ? codec.decode(raw as unknown as Record<string, unknown>) : raw;
        if (isReply(msg)) return this.settle(msg.id, msg.ok ? { value: msg.result } : { error: msg.error });
        if (msg.event === 'ready') {
          clearTimeout(timer);
          resolve();
          return;
        }
        this.emit('event', msg);
      });
      child.on('error', (err) => {
        clearTimeout(timer);
        reject(new HostGoneError(`engine host for ${this.pipelineId} could not start: ${err.message}`));
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        if (this.child === child) this.child = null;
        for (const [id] of this.pending) this.settle(id, { error: { code: 'HOST_GONE', message: 'the engine host exited' } });
        reject(new HostGoneError(`engine host for ${this.pipelineId} exited during start`));
        // A spare that died while it was being named is not news: start() spawns its replacement.
        if (this.adopting) return;
        const max = this.opts.memoryMaxBytes;
        const hint = max && PRLIMIT && signal && ALLOCATION_FAILURE_SIGNALS.has(signal)
          ? `a fault in one of its elements, or more memory than its ${Math.round(max / 1048576)} MiB ceiling (--host-memory-max-mb)`
          : undefined;
        this.emit('exit', { code, signal, expected: this.closing, hint } satisfies HostExit);
      });
    });
  }

  private settle(id: number, outcome: { value?: unknown; error?: HostErrorBody }): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (outcome.error) {
      p.reject(outcome.error.code === 'HOST_GONE'
        ? new HostGoneError(outcome.error.message)
        : new HostCommandError(outcome.error.code, outcome.error.message));
    } else p.resolve(outcome.value);
    // After the caller's own continuation: the spare pool starts the next spare then (core/engine/spare-host.ts).
    this.emit('answered', p.op);
  }

  request<T = unknown>(cmd: HostCommand, timeoutMs = REPLY_TIMEOUT_MS): Promise<T> {
    const child = this.child;
    if (!child || !this.alive || !child.connected) return Promise.reject(new HostGoneError('the engine host is not running'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        // A host that does not answer is hung: kill it so the supervisor can restart it.
        child.kill('SIGKILL');
        reject(new HostCommandError('NG_ERR_TIMEOUT', `engine host did not answer ${cmd.op} in time`));
      }, timeoutMs);
      this.pending.set(id, { op: cmd.op, resolve: resolve as (v: unknown) => void, reject, timer });
      child.send(this.codec ? this.codec.encode(id, cmd) : { id, cmd }, (err) => {
        if (err) this.settle(id, { error: { code: 'HOST_GONE', message: err.message } });
      });
    });
  }

  close(): Promise<void> {
    const child = this.child;
    this.closing = true;
    if (!child || !this.alive) return Promise.resolve();
    return new Promise((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), CLOSE_GRACE_MS);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }
}

export interface HostFactoryOptions {
  memoryMaxBytes?: number;
  startTimeoutMs: number;
  kind?: EngineHostKind;
  /** Keep a spare host ready (config spareEngineHost): with its retry waits and logger. */
  spare?: SpareHostOptions;
}

/** The factory and what it keeps besides the hosts it made: the spare, ended with close(). */
export interface EngineHosts {
  factory: EngineHostFactory;
  /** Starts the spare, when there is to be one. */
  start(): void;
  /** The spare host's pid, null when there is none now. */
  sparePid(): number | null;
  close(): Promise<void>;
}

/**
 * Engine hosts of kind (Node by default) with an address-space ceiling (RLIMIT_AS) of memoryMaxBytes each (0 or
 * absent: none), each given startTimeoutMs to say it is ready; with `spare`, each taken from the spare while there is
 * one (core/engine/spare-host.ts).
 */
export function engineHosts(opts: HostFactoryOptions): EngineHosts {
  const make = (id: string) => new EngineHostProcess(id, { memoryMaxBytes: opts.memoryMaxBytes, startTimeoutMs: opts.startTimeoutMs, kind: opts.kind });
  if (!opts.spare) return { factory: make, start: () => undefined, sparePid: () => null, close: async () => undefined };
  const spares = new SpareHosts(() => make('(spare)'), opts.spare);
  return { factory: (id) => spares.take(id) ?? make(id), start: () => spares.fill(), sparePid: () => spares.pid, close: () => spares.close() };
}

/**
 * The native host (docs/engine-host.md): Node hands it the IPC channel's fd in NODE_CHANNEL_FD and, with `json`
 * serialisation, one JSON text and a newline per message both ways. Under prlimit like the Node host.
 */
function spawnNative(args: string[], memoryMaxBytes: number | undefined, env: NodeJS.ProcessEnv): ChildProcess {
  const [file, argv] = memoryMaxBytes && PRLIMIT
    ? [PRLIMIT, [`--as=${memoryMaxBytes}`, '--', nativeEngineHost, ...args]]
    : [nativeEngineHost, args];
  return spawn(file, argv, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'json', env });
}

/** util-linux's prlimit, where it is: Node cannot set a child's rlimits itself. */
export const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => existsSync(p)) ?? null;

/**
 * The fork options that start the host under prlimit: `prlimit --as=N node <execArgv> host-main.js`. prlimit sets
 * the limit and execs Node, so the host keeps the pid, the IPC channel and the limit from its first instruction
 * (a `prlimit --pid` after the fork would race the host's own start). Past the limit an allocation fails, and
 * GStreamer (g_malloc) or V8 aborts: the host dies like any crash and is restarted with backoff.
 */
function ceiling(bytes: number | undefined): { execPath?: string; execArgv?: string[] } {
  if (!bytes || !PRLIMIT) return {};
  return { execPath: PRLIMIT, execArgv: [`--as=${bytes}`, '--', process.execPath, ...process.execArgv] };
}
