/**
 * A fake engine host behind the EngineHostFactory seam (core/engine/host-process.ts): no process, no GStreamer. A
 * test scripts it (host starts that fail, plays that fail, a command held until the test lets it go or crashes the
 * host) and reads what the manager asked of it. Crashes settle pending commands with HostGoneError and then report
 * the exit, in the order EngineHostProcess does.
 */
import { EventEmitter } from 'node:events';
import pino from 'pino';
import { builtinPlugins } from '../../plugins';
import { HostCommandError, HostGoneError, type EngineHost, type EngineHostFactory, type HostExit } from '../../core/engine/host-process';
import type { HostCommand, HostEvent } from '../../core/engine/protocol';
import { PipelineEvents, type PipelineEvent } from '../../core/events/pipeline-events';
import { unrestricted } from '../../core/licence/gate';
import { PipelineManager, type ManagerOptions } from '../../core/pipeline/manager';
import { PluginRegistry } from '../../core/plugins/registry';
import type { Store } from '../../core/store/json-store';

type Op = HostCommand['op'];

interface Pending {
  op: Op;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

let nextPid = 1000;

export class FakeEngineHost extends EventEmitter implements EngineHost {
  readonly pid = nextPid++;
  alive = false;
  /** Every command the manager sent, in order. */
  readonly commands: HostCommand[] = [];
  private readonly pending = new Set<Pending>();
  private startPending: Pending | null = null;

  constructor(readonly pipelineId: string, private readonly script: FakeHosts) {
    super();
  }

  start(): Promise<void> {
    if (this.script.take('start')) return Promise.reject(new HostGoneError(`engine host for ${this.pipelineId} exited during start`));
    if (this.script.takeHold('start')) {
      return new Promise((resolve, reject) => {
        this.startPending = { op: 'state', resolve: () => { this.alive = true; resolve(); }, reject };
      });
    }
    this.alive = true;
    return Promise.resolve();
  }

  request<T = unknown>(cmd: HostCommand): Promise<T> {
    if (!this.alive) return Promise.reject(new HostGoneError('the engine host is not running'));
    this.commands.push(cmd);
    if (cmd.op === 'play' && this.script.take('play')) {
      return Promise.reject(new HostCommandError('NG_ERR_STATE', 'fault injected: the pipeline did not reach PLAYING'));
    }
    const held = this.script.takeHold(cmd.op);
    return new Promise<T>((resolve, reject) => {
      const p: Pending = { op: cmd.op, resolve: resolve as (v: unknown) => void, reject };
      if (held) this.pending.add(p);
      else resolve(answer(cmd) as T);
    });
  }

  /** Lets held commands of op (or the held start) go, answered as usual. */
  release(op: Op | 'start'): void {
    if (op === 'start') {
      this.startPending?.resolve(undefined);
      this.startPending = null;
      return;
    }
    for (const p of [...this.pending]) {
      if (p.op !== op) continue;
      this.pending.delete(p);
      p.resolve(answer({ op } as HostCommand));
    }
  }

  /** Whether a command of op is being held. */
  holding(op: Op | 'start'): boolean {
    return op === 'start' ? this.startPending !== null : [...this.pending].some((p) => p.op === op);
  }

  /** The host dies unexpectedly (SIGKILL, an encoder abort). */
  crash(signal = 'SIGKILL'): void {
    this.end({ code: null, signal, expected: false });
  }

  close(): Promise<void> {
    if (this.alive || this.startPending) this.end({ code: 0, signal: null, expected: true });
    return Promise.resolve();
  }

  /** A bus message, an RTSP event, a sample: as the real host sends it. */
  send(ev: HostEvent): void {
    this.emit('event', ev);
  }

  private end(info: HostExit): void {
    this.alive = false;
    for (const p of this.pending) p.reject(new HostGoneError('the engine host exited'));
    this.pending.clear();
    this.startPending?.reject(new HostGoneError(`engine host for ${this.pipelineId} exited during start`));
    this.startPending = null;
    this.emit('exit', info);
  }
}

function answer(cmd: HostCommand): unknown {
  switch (cmd.op) {
    case 'play':
      return { state: cmd.services?.some((s) => s.launch !== undefined) ? 'ready' : 'playing' };
    case 'stop':
      return { state: 'null' };
    case 'inspect':
      return [];
    case 'probe':
      // A passed-through source sends H.264, as the test sources of the media tests do.
      return 'video/x-h264, stream-format=(string)byte-stream';
    default:
      return null;
  }
}

/** The factory and the script of every fake host it makes: faults are counted, one taken per attempt. */
export class FakeHosts {
  readonly made: FakeEngineHost[] = [];
  /** When each host was made (Date.now(), fake under fake timers). */
  readonly madeAt: number[] = [];
  private readonly faults = new Map<Op | 'start', number>();
  private readonly holds = new Map<Op | 'start', number>();

  readonly factory: EngineHostFactory = (id) => {
    const host = new FakeEngineHost(id, this);
    this.made.push(host);
    this.madeAt.push(Date.now());
    return host;
  };

  /** The next n host starts fail (the process exits before it is ready). */
  failStarts(n = 1): void {
    this.faults.set('start', (this.faults.get('start') ?? 0) + n);
  }

  /** The next n plays fail as a state change would. */
  failPlays(n = 1): void {
    this.faults.set('play', (this.faults.get('play') ?? 0) + n);
  }

  /** The next command of op (or the next host start) is held until released or the host crashes. */
  hold(op: Op | 'start'): void {
    this.holds.set(op, (this.holds.get(op) ?? 0) + 1);
  }

  /** Stops every fault and hold still waiting to be taken. */
  clear(): void {
    this.faults.clear();
    this.holds.clear();
  }

  take(what: Op | 'start'): boolean {
    return takeOne(this.faults, what);
  }

  takeHold(what: Op | 'start'): boolean {
    return takeOne(this.holds, what);
  }

  /** The newest host of a pipeline. */
  latest(id: string): FakeEngineHost | undefined {
    return [...this.made].reverse().find((h) => h.pipelineId === id);
  }

  of(id: string): FakeEngineHost[] {
    return this.made.filter((h) => h.pipelineId === id);
  }
}

function takeOne(counts: Map<string, number>, key: string): boolean {
  const n = counts.get(key) ?? 0;
  if (n <= 0) return false;
  counts.set(key, n - 1);
  return true;
}

export class MemoryStore implements Store {
  private readonly docs = new Map<string, unknown>();

  read<T>(collection: string, name: string): T | undefined {
    const v = this.docs.get(`${collection}/${name}`);
    return v === undefined ? undefined : structuredClone(v) as T;
  }

  write(collection: string, name: string, value: unknown): void {
    this.docs.set(`${collection}/${name}`, structuredClone(value));
  }

  remove(collection: string, name: string): void {
    this.docs.delete(`${collection}/${name}`);
  }

  list(collection: string): string[] {
    return [...this.docs.keys()].filter((k) => k.startsWith(`${collection}/`)).map((k) => k.slice(collection.length + 1));
  }
}

/**
 * A manager over fake hosts, with the events it sent. Backoff 100 ms doubling to 400 ms unless told otherwise. A store
 * given is the one a previous manager kept (a restart of the service).
 */
export function fakeManager(opts: Partial<ManagerOptions> = {}, store = new MemoryStore()) {
  const hosts = new FakeHosts();
  const registry = new PluginRegistry();
  for (const p of builtinPlugins) registry.register(p, 'builtin');
  const events = new PipelineEvents();
  const seen: PipelineEvent[] = [];
  events.subscribe((ev) => seen.push(ev));
  const manager = new PipelineManager(registry, hosts.factory, events, store, unrestricted, pino({ level: 'silent' }), {
    startTimeoutMs: 1000, stopTimeoutMs: 500, rtspLatencyMs: () => 200, restartBaseMs: 100, restartMaxMs: 400, ...opts,
  });
  return { manager, hosts, events: seen, store };
}

/** A simple pipeline that encodes the test source to UDP on 127.0.0.1 (nothing is sent: the host is fake). */
export function udpBody(id: string, extra: Record<string, unknown> = {}) {
  return {
    id, mode: 'simple', source: { uri: 'test://ball' },
    encoding: { codec: 'h264', bitrate: 500, width: 320, height: 240, fps: 30 },
    output: { uri: 'udp://127.0.0.1:5004' }, ...extra,
  };
}
