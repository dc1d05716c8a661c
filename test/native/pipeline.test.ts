// The Pipeline binding (native/src/pipeline.c, value.c) against real GStreamer: bus and sample messages,
// state changes off the JS thread, properties, appsrc/appsink, force-key-unit, destroy and GC.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type * as Native from '../../native';

const nativeDir = join(__dirname, '../../native');
const native: typeof Native = createRequire(__filename)(nativeDir);
type Msg = Native.BusMessage;

let dir: string;
const live: Native.Pipeline[] = [];

beforeAll(() => {
  native.init();
  dir = mkdtempSync(join(tmpdir(), 'encoderd-pipeline-'));
});
afterEach(() => {
  for (const p of live.splice(0)) p.destroy();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A pipeline that is destroyed after the test, with every message collected. */
function make(description: string) {
  const messages: Msg[] = [];
  const waiters: { pred: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];
  const p = new native.Pipeline(description, (m) => {
    messages.push(m);
    for (const w of [...waiters]) if (w.pred(m)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(m); }
  });
  live.push(p);
  /** Resolves with the first message (already seen or future) that satisfies pred. */
  const next = (pred: (m: Msg) => boolean, timeoutMs = 10_000) =>
    new Promise<Msg>((resolve, reject) => {
      const seen = messages.find(pred);
      if (seen) return resolve(seen);
      const t = setTimeout(() => reject(new Error(`no such message in ${timeoutMs} ms; got ${messages.map((m) => m.type)}`)), timeoutMs);
      waiters.push({ pred, resolve: (m) => { clearTimeout(t); resolve(m); } });
    });
  return { p, messages, next };
}

const codeOf = (fn: () => unknown) => {
  try { fn(); } catch (e) { return (e as { code?: string }).code; }
  return 'no error';
};
const rejection = (promise: Promise<unknown>) =>
  promise.then(() => ({ code: 'resolved', message: '' }), (e: Error & { code: string }) => e);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('construction', () => {
  it('parses a description and exposes the class', () => {
    const { p } = make('videotestsrc num-buffers=1 ! fakesink');
    expect(p).toBeInstanceOf(native.Pipeline);
    expect(p.getState()).toBe('null');
  });

  it('throws NG_ERR_PARSE with GStreamer\'s message for a missing element', () => {
    expect(() => new native.Pipeline('nosuchelement ! fakesink', () => {})).toThrow(/no element "nosuchelement"/);
    expect(codeOf(() => new native.Pipeline('nosuchelement ! fakesink', () => {}))).toBe('NG_ERR_PARSE');
  });

  it('throws NG_ERR_PARSE for elements that cannot be linked', () => {
    expect(codeOf(() => new native.Pipeline('videotestsrc ! audioconvert ! fakesink', () => {}))).toBe('NG_ERR_PARSE');
    expect(() => new native.Pipeline('videotestsrc ! audioconvert ! fakesink', () => {})).toThrow(/could not link/);
  });

  it('wraps a single element into a pipeline', async () => {
    const { p } = make('fakesink name=only');
    await expect(p.setState('ready', 5000)).resolves.toBe('ready');
    expect(p.elements().map((e) => e.name)).toEqual(['only']);
  });

  it('rejects bad arguments with NG_ERR_ARG', () => {
    expect(codeOf(() => new native.Pipeline(42 as unknown as string, () => {}))).toBe('NG_ERR_ARG');
    expect(codeOf(() => new native.Pipeline('fakesink', 'nope' as unknown as () => void))).toBe('NG_ERR_ARG');
  });
});

describe('bus messages and state', () => {
  it('delivers state-changed (the pipeline only) and eos', async () => {
    const { p, messages, next } = make('videotestsrc num-buffers=30 ! fakesink');
    await expect(p.setState('playing', 5000)).resolves.toBe('playing');
    await next((m) => m.type === 'eos');
    const states = messages.filter((m) => m.type === 'state-changed');
    expect(states.map((m) => m.type === 'state-changed' && m.current)).toEqual(['ready', 'paused', 'playing']);
    expect(states[2]).toEqual({ type: 'state-changed', old: 'paused', current: 'playing', pending: 'void-pending' });
    expect(p.getState()).toBe('playing');
  });

  it('delivers element messages with their simple fields', async () => {
    const { p, next } = make('audiotestsrc num-buffers=20 ! level name=lvl interval=20000000 ! fakesink');
    await p.setState('playing', 5000);
    const m = await next((x) => x.type === 'element');
    expect(m).toMatchObject({ type: 'element', source: 'lvl', name: 'level' });
    if (m.type !== 'element') throw new Error('unreachable');
    expect(typeof m.fields.endtime).toBe('number');
    expect(m.fields.rms).toBeUndefined(); // a GValueArray is not a simple field
  });

  it('delivers errors with source, message and debug', async () => {
    const { p, next } = make(`videotestsrc ! filesink name=out location=${dir}/no/such/dir/x`);
    await rejection(p.setState('playing', 5000));
    const m = await next((x) => x.type === 'error');
    expect(m).toMatchObject({ type: 'error', source: 'out' });
    if (m.type !== 'error') throw new Error('unreachable');
    expect(m.message).toMatch(/Could not open file/);
    expect(m.debug).toMatch(/No such file or directory/);
  });

  it('rejects a failing state change with NG_ERR_STATE and the error that caused it', async () => {
    const { p } = make('videotestsrc ! filesink location=/nonexistent-dir/x');
    const e = await rejection(p.setState('playing', 5000));
    expect(e.code).toBe('NG_ERR_STATE');
    expect(e.message).toMatch(/Could not open file "\/nonexistent-dir\/x"/);
  });

  it('rejects a state change that does not complete in time with NG_ERR_TIMEOUT', async () => {
    // A non-live appsrc nobody pushes into never prerolls.
    const { p } = make('appsrc ! fakesink');
    const started = Date.now();
    const e = await rejection(p.setState('paused', 300));
    expect(e.code).toBe('NG_ERR_TIMEOUT');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('resolves a live source going to paused (no preroll)', async () => {
    const { p } = make('videotestsrc is-live=true ! fakesink');
    await expect(p.setState('paused', 2000)).resolves.toBe('paused');
  });

  it('rejects an unknown state with NG_ERR_ARG', () => {
    const { p } = make('fakesink');
    expect(codeOf(() => p.setState('running' as 'playing', 100))).toBe('NG_ERR_ARG');
  });

  it('sendEos finishes a live pipeline and a file output', async () => {
    const { p, next } = make(`videotestsrc is-live=true ! x264enc tune=zerolatency speed-preset=ultrafast ! mp4mux ! filesink location=${dir}/eos.mp4`);
    await p.setState('playing', 5000);
    await sleep(300);
    p.sendEos();
    await next((m) => m.type === 'eos');
    const probe = spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name', '-of', 'csv=p=0', `${dir}/eos.mp4`], { encoding: 'utf8' });
    expect(probe.stdout.trim()).toBe('h264');
  });
});

describe('properties', () => {
  it('round-trips strings, booleans, integers, doubles, enums and caps', () => {
    const { p } = make('audiotestsrc name=a ! capsfilter name=cf ! fakesink name=s');
    p.setProperty('s', 'sync', true);
    expect(p.getProperty('s', 'sync')).toBe(true);
    p.setProperty('s', 'sync', 'false');
    expect(p.getProperty('s', 'sync')).toBe(false);
    p.setProperty('a', 'num-buffers', 123);
    expect(p.getProperty('a', 'num-buffers')).toBe(123);
    p.setProperty('a', 'num-buffers', '77');
    expect(p.getProperty('a', 'num-buffers')).toBe(77);
    p.setProperty('a', 'freq', 523.25);
    expect(p.getProperty('a', 'freq')).toBe(523.25);
    p.setProperty('a', 'wave', 'square');
    expect(p.getProperty('a', 'wave')).toBe('square');
    p.setProperty('a', 'wave', 0); // by number: sine
    expect(p.getProperty('a', 'wave')).toBe('sine');
    p.setProperty('a', 'timestamp-offset', 5_000_000_000); // int64
    expect(p.getProperty('a', 'timestamp-offset')).toBe(5_000_000_000);
    p.setProperty('cf', 'caps', 'audio/x-raw,rate=8000');
    expect(p.getProperty('cf', 'caps')).toBe('audio/x-raw, rate=(int)8000');
    expect(p.getProperty('s', 'name')).toBe('s');
  });

  it('round-trips flags and reads object-typed values as null', () => {
    const { p } = make('videotestsrc ! x264enc name=enc ! fakesink name=s');
    p.setProperty('enc', 'analyse', 'i4x4+p8x8');
    expect(p.getProperty('enc', 'analyse')).toBe('i4x4+p8x8');
    p.setProperty('enc', 'analyse', 0);
    expect(p.getProperty('enc', 'analyse')).toBe('0');
    expect(codeOf(() => p.setProperty('enc', 'analyse', 'no-such-flag'))).toBe('NG_ERR_VALUE');
    expect(p.getProperty('s', 'last-sample')).toBeNull();
  });

  it('finds elements inside bins', () => {
    const { p } = make('videotestsrc ! ( queue name=inner-q ! fakesink name=inner )');
    p.setProperty('inner-q', 'max-size-buffers', 7);
    expect(p.getProperty('inner-q', 'max-size-buffers')).toBe(7);
  });

  it('throws NG_ERR_NO_ELEMENT, NG_ERR_NO_PROPERTY and NG_ERR_VALUE', () => {
    const { p } = make('audiotestsrc name=a ! fakesink name=s');
    expect(codeOf(() => p.setProperty('nope', 'sync', true))).toBe('NG_ERR_NO_ELEMENT');
    expect(codeOf(() => p.getProperty('nope', 'sync'))).toBe('NG_ERR_NO_ELEMENT');
    expect(codeOf(() => p.setProperty('s', 'no-such-prop', true))).toBe('NG_ERR_NO_PROPERTY');
    expect(codeOf(() => p.getProperty('s', 'no-such-prop'))).toBe('NG_ERR_NO_PROPERTY');
    expect(codeOf(() => p.setProperty('s', 'stats', 'x'))).toBe('NG_ERR_NO_PROPERTY'); // read-only
    expect(codeOf(() => p.setProperty('a', 'wave', 'no-such-wave'))).toBe('NG_ERR_VALUE');
    expect(codeOf(() => p.setProperty('a', 'wave', 999))).toBe('NG_ERR_VALUE');
    expect(codeOf(() => p.setProperty('a', 'num-buffers', 1.5))).toBe('NG_ERR_VALUE');
    expect(codeOf(() => p.setProperty('a', 'num-buffers', -5))).toBe('NG_ERR_VALUE'); // below the pspec minimum (-1)
    expect(codeOf(() => p.setProperty('a', 'num-buffers', 2 ** 40))).toBe('NG_ERR_VALUE');
    expect(codeOf(() => p.setProperty('a', 'num-buffers', true))).toBe('NG_ERR_VALUE');
    expect(codeOf(() => p.setProperty('a', 'freq', 'loud'))).toBe('NG_ERR_VALUE');
    // A refused value leaves the old one in place.
    expect(p.getProperty('a', 'num-buffers')).toBe(-1);
  });
});

describe('elements()', () => {
  it('lists every element with factory and readable simple properties, recursing into bins', () => {
    const { p } = make(`videotestsrc name=src pattern=ball ! ( queue name=q ! filesink name=out location=${dir}/x.raw )`);
    const els = p.elements();
    const byName = Object.fromEntries(els.map((e) => [e.name, e]));
    expect(Object.keys(byName).sort()).toEqual(expect.arrayContaining(['src', 'q', 'out']));
    expect(byName.out.factory).toBe('filesink');
    expect(byName.out.properties.location).toBe(`${dir}/x.raw`);
    expect(byName.out.properties.sync).toBe('false');
    expect(byName.src.properties.pattern).toBe('ball');
    expect(byName.q.properties['max-size-buffers']).toBe('200');
    expect(byName.out.properties.name).toBeUndefined();
  });
});

describe('appsrc and appsink', () => {
  it('pushBuffer reaches an appsink watched with watchSink, same bytes and pts', async () => {
    const { p, messages, next } = make('appsrc name=in is-live=true format=time caps=application/x-test ! appsink name=out sync=false');
    p.watchSink('out');
    // A live pipeline reaches playing only once data reaches the sink: push in paused, then play.
    await p.setState('paused', 5000);
    const sent = [Buffer.from('first buffer'), Buffer.from([0, 1, 2, 255]), Buffer.alloc(100_000, 7)];
    sent.forEach((b, i) => p.pushBuffer('in', b, i * 40_000_000));
    await expect(p.setState('playing', 5000)).resolves.toBe('playing');
    await next((m) => m.type === 'sample' && m.pts === 80_000_000);
    const samples = messages.filter((m): m is Extract<Msg, { type: 'sample' }> => m.type === 'sample');
    expect(samples.map((s) => s.sink)).toEqual(['out', 'out', 'out']);
    expect(samples.map((s) => s.pts)).toEqual([0, 40_000_000, 80_000_000]);
    samples.forEach((s, i) => expect(Buffer.compare(s.data, sent[i])).toBe(0));
  });

  it('carries the negotiated caps of each sample, as text', async () => {
    const { p, next } = make('videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,height=48,framerate=10/1 ! '
      + 'x264enc tune=zerolatency speed-preset=ultrafast ! h264parse ! video/x-h264,stream-format=avc,alignment=au ! appsink name=out sync=false');
    p.watchSink('out');
    await p.setState('playing', 5000);
    const m = await next((x) => x.type === 'sample');
    expect(m.type === 'sample' && m.caps).toMatch(/^video\/x-h264, .*stream-format=\(string\)avc/);
    expect(m.type === 'sample' && m.caps).toContain('width=(int)64');
  });

  it('reports pts -1 for buffers without a timestamp', async () => {
    const { p, next } = make('appsrc name=in is-live=true caps=application/x-test ! appsink name=out sync=false');
    p.watchSink('out');
    await p.setState('paused', 5000);
    // basesrc stamps a live source's first buffer with 0 when it has none; the second one keeps none.
    p.pushBuffer('in', Buffer.from('first'), -1);
    p.pushBuffer('in', Buffer.from('second'), -1);
    await p.setState('playing', 5000);
    await expect(next((m) => m.type === 'sample' && m.data.toString() === 'second')).resolves.toMatchObject({ pts: -1 });
  });

  it('refuses non-app elements and buffers pushed into a stopped appsrc', async () => {
    const { p } = make('appsrc name=in is-live=true ! fakesink name=s');
    await p.setState('paused', 5000);
    await p.setState('null', 5000);
    expect(codeOf(() => p.pushBuffer('s', Buffer.from('x'), 0))).toBe('NG_ERR_ARG');
    expect(codeOf(() => p.watchSink('in'))).toBe('NG_ERR_ARG');
    expect(codeOf(() => p.pushBuffer('nope', Buffer.from('x'), 0))).toBe('NG_ERR_NO_ELEMENT');
    expect(codeOf(() => p.pushBuffer('in', 'x' as unknown as Buffer, 0))).toBe('NG_ERR_ARG');
    expect(codeOf(() => p.pushBuffer('in', Buffer.from('x'), 0))).toBe('NG_ERR_STATE'); // flushing once stopped
  });
});

describe('forceKeyUnit', () => {
  // key-int-max far beyond the test's length: any keyframe after the first is a forced one.
  const H264 = 'videotestsrc is-live=true ! video/x-raw,format=I420,width=160,height=120,framerate=30/1 ! ' +
    'x264enc name=enc tune=zerolatency speed-preset=ultrafast key-int-max=10000 ! h264parse name=parse ! appsink name=out sync=false';

  async function keyframesAfter(force: string | null) {
    const { p, messages, next } = make(H264);
    p.watchSink('out');
    await p.setState('playing', 5000);
    const count = () => messages.filter((m) => m.type === 'sample').length;
    await next(() => count() >= 10);
    const before = count();
    if (force) p.forceKeyUnit(force);
    await next(() => count() >= before + 20);
    const samples = messages.filter((m): m is Extract<Msg, { type: 'sample' }> => m.type === 'sample');
    expect(samples[0].keyframe).toBe(true);
    return samples.slice(before).filter((s) => s.keyframe).length;
  }

  it('without a request, no second keyframe appears (the control)', async () => {
    expect(await keyframesAfter(null)).toBe(0);
  });
  it('from the appsink, the encoder upstream makes a keyframe', async () => {
    expect(await keyframesAfter('out')).toBe(1);
  });
  it('named on the encoder itself, it makes a keyframe', async () => {
    expect(await keyframesAfter('enc')).toBe(1);
  });
  it('throws NG_ERR_NO_ELEMENT for an unknown element', () => {
    const { p } = make('fakesink');
    expect(codeOf(() => p.forceKeyUnit('nope'))).toBe('NG_ERR_NO_ELEMENT');
  });
});

describe('destroy', () => {
  it('is safe while playing and twice; afterwards methods throw NG_ERR_DESTROYED and no message arrives', async () => {
    const { p, messages } = make('videotestsrc is-live=true ! appsink name=out sync=false');
    p.watchSink('out');
    await p.setState('playing', 5000);
    await sleep(200);
    p.destroy();
    const seen = messages.length;
    expect(seen).toBeGreaterThan(3);
    p.destroy();
    await sleep(200);
    expect(messages.length).toBe(seen);
    expect(codeOf(() => p.getState())).toBe('NG_ERR_DESTROYED');
    expect(codeOf(() => p.setProperty('out', 'sync', true))).toBe('NG_ERR_DESTROYED');
    expect(codeOf(() => p.elements())).toBe('NG_ERR_DESTROYED');
    expect(codeOf(() => p.setState('playing', 100))).toBe('NG_ERR_DESTROYED');
  });

  it('settles a pending setState with NG_ERR_DESTROYED', async () => {
    const { p } = make('appsrc ! fakesink');
    const pending = rejection(p.setState('paused', 10_000));
    await sleep(200);
    const started = Date.now();
    p.destroy();
    const e = await pending;
    expect(e.code).toBe('NG_ERR_DESTROYED');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('is safe when destroy comes before the queued setState even starts', async () => {
    const { p } = make('videotestsrc is-live=true ! fakesink');
    const pending = rejection(p.setState('playing', 5000));
    p.destroy();
    expect((await pending).code).toBe('NG_ERR_DESTROYED');
  });
});

describe('process lifetime (child processes)', () => {
  const run = (script: string) =>
    spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', timeout: 30_000 });

  it('GC of undestroyed pipelines (playing, watching samples, pending setState) is safe', () => {
    const r = run(`
      const n = require(${JSON.stringify(nativeDir)}); n.init();
      let collected = 0;
      const reg = new FinalizationRegistry(() => collected++);
      async function start(i) {
        const p = new n.Pipeline('videotestsrc is-live=true ! appsink name=out sync=false', () => {});
        p.watchSink('out');
        reg.register(p, i);
        if (i % 2) p.setState('playing', 5000).catch(() => {}); else await p.setState('playing', 5000);
      }
      function pending() {
        const q = new n.Pipeline('appsrc ! fakesink', () => {});
        reg.register(q, 'pending');
        q.setState('paused', 1000).catch(() => {});
      }
      (async () => {
        for (let i = 0; i < 10; i++) await start(i);
        pending();
        for (let i = 0; i < 30 && collected < 11; i++) { await new Promise((r) => setTimeout(r, 100)); globalThis.gc(); }
        console.log('collected', collected);
      })();
    `);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('collected 11');
  });

  it('throws NG_ERR_INIT before init()', () => {
    const r = run(`
      const n = require(${JSON.stringify(nativeDir)});
      for (const f of [() => new n.Pipeline('fakesink', () => {}), () => new n.RtspServer('127.0.0.1', 0, () => {})]) {
        try { f(); console.log('no error'); } catch (e) { console.log(e.code); }
      }
    `);
    expect(r.stdout.trim().split('\n')).toEqual(['NG_ERR_INIT', 'NG_ERR_INIT']);
  });

  it('a live pipeline alone does not keep Node running', () => {
    const started = Date.now();
    const r = run(`
      const n = require(${JSON.stringify(nativeDir)}); n.init();
      globalThis.keep = new n.Pipeline('videotestsrc is-live=true ! fakesink', () => {});
      globalThis.keep.setState('playing', 5000).then((s) => console.log(s));
    `);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('playing');
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
