/**
 * The spare engine host (core/engine/spare-host.ts) over fake hosts and fake timers: what is handed over, what is
 * started next, a spare that dies idle, the wait before a failing spare is tried again, and the end.
 */
import { EventEmitter } from 'node:events';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SpareHosts, type SpareableHost } from '../../core/engine/spare-host';

let nextPid = 500;

class FakeSpare extends EventEmitter implements SpareableHost {
  readonly pid = nextPid++;
  alive = false;
  pipeline: string | null = null;
  closed = false;
  private ready: { resolve: () => void; reject: (e: Error) => void } | null = null;

  warmUp(): Promise<void> {
    this.alive = true;
    return new Promise((resolve, reject) => { this.ready = { resolve, reject }; });
  }

  /** The host says ready. */
  becomeReady(): void {
    this.ready?.resolve();
  }

  /** The host ends by itself (crash, failed start). */
  die(): void {
    this.alive = false;
    this.ready?.reject(new Error('exited during start'));
    this.emit('exit');
  }

  /** The host answers a command of the core's. */
  answer(op: string): void {
    this.emit('answered', op);
  }

  assign(pipelineId: string): void {
    this.pipeline = pipelineId;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.alive = false;
  }
}

let made: FakeSpare[];
let spares: SpareHosts<FakeSpare>;

beforeEach(() => {
  vi.useFakeTimers();
  made = [];
  spares = new SpareHosts(() => {
    const h = new FakeSpare();
    made.push(h);
    return h;
  }, { retryBaseMs: 100, retryMaxMs: 400, log: pino({ level: 'silent' }) });
});

afterEach(async () => {
  await spares.close();
  vi.useRealTimers();
});

/** Lets what was set off run: the next spare starts in a setImmediate (after the answer's own continuations). */
const settle = () => vi.advanceTimersByTimeAsync(1);

describe('spare engine host', () => {
  it('starts one spare, hands it to the next pipeline named for it, and starts the next once the play is answered', async () => {
    spares.fill();
    spares.fill();
    expect(made).toHaveLength(1);
    made[0].becomeReady();
    expect(spares.pid).toBe(made[0].pid);
    const host = spares.take('cam1');
    expect(host).toBe(made[0]);
    expect(host!.pipeline).toBe('cam1');
    expect(spares.pid).toBeNull();
    host!.answer('name');
    await settle();
    expect(made).toHaveLength(1);
    host!.answer('play');
    expect(made).toHaveLength(1);
    await settle();
    expect(made).toHaveLength(2);
    expect(spares.pid).toBe(made[1].pid);
    expect(made[1].pipeline).toBeNull();
    host!.answer('stop');
    await settle();
    expect(made).toHaveLength(2);
  });

  it('starts the next spare a second after a hand-over at the latest, or when the host handed over ends', async () => {
    spares.fill();
    spares.take('idle');
    await vi.advanceTimersByTimeAsync(999);
    expect(made).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(made).toHaveLength(2);
    spares.take('short-lived')!.die();
    await settle();
    expect(made).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1000);
    expect(made).toHaveLength(3);
  });

  it('hands over a spare still starting: the pipeline waits for that start, not a new one', async () => {
    spares.fill();
    const host = spares.take('cam1')!;
    expect(host).toBe(made[0]);
    host.answer('play');
    await settle();
    expect(made).toHaveLength(2);
  });

  it('has none to give before fill() and after close(): the caller spawns its own host', async () => {
    expect(spares.take('cam1')).toBeNull();
    spares.fill();
    await spares.close();
    expect(made[0].closed).toBe(true);
    expect(spares.take('cam2')).toBeNull();
    spares.fill();
    expect(made).toHaveLength(1);
  });

  it('replaces a spare that died while idle after the retry wait, doubling while spares keep dying', async () => {
    spares.fill();
    made[0].becomeReady();
    made[0].die();
    expect(spares.take('cam1')).toBeNull();
    expect(spares.pid).toBeNull();
    await vi.advanceTimersByTimeAsync(99);
    expect(made).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(made).toHaveLength(2);
    made[1].die();
    await vi.advanceTimersByTimeAsync(199);
    expect(made).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(made).toHaveLength(3);
    made[2].die();
    await vi.advanceTimersByTimeAsync(400);
    expect(made).toHaveLength(4);
    made[3].die();
    // The ceiling: 400 ms, not 800.
    await vi.advanceTimersByTimeAsync(400);
    expect(made).toHaveLength(5);
    made[4].becomeReady();
    await vi.advanceTimersByTimeAsync(0);
    // A spare that said ready resets the wait.
    made[4].die();
    await vi.advanceTimersByTimeAsync(100);
    expect(made).toHaveLength(6);
  });

  it('does not watch a host once it is handed over: its death is its pipeline\'s', async () => {
    spares.fill();
    made[0].becomeReady();
    const host = spares.take('cam1')!;
    host.answer('play');
    host.die();
    await vi.advanceTimersByTimeAsync(1000);
    expect(made).toHaveLength(2);
    expect(spares.pid).toBe(made[1].pid);
  });

  it('close() during a retry wait starts nothing more', async () => {
    spares.fill();
    made[0].die();
    await spares.close();
    await vi.advanceTimersByTimeAsync(1000);
    expect(made).toHaveLength(1);
  });
});
