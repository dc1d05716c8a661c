/**
 * The native engine host (native/build/encoderd-host, docs/engine-host.md) driven as the core drives it: spawned with
 * a JSON IPC channel, `ready` first with its pid, then requests answered with the addon's codes and texts, events in
 * between, and an exit 0 when the channel closes or on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const HOST = join(__dirname, '../../native/build/encoderd-host');

interface Host {
  child: ChildProcess;
  events: Array<Record<string, any>>;
  request(cmd: Record<string, unknown>): Promise<Record<string, any>>;
  exited: Promise<{ code: number | null; signal: string | null }>;
}

const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

async function startHost(args = ['--pipeline', 'test']): Promise<Host> {
  const child = spawn(HOST, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'json' });
  started.push(child);
  const events: Array<Record<string, any>> = [];
  const pending = new Map<number, (m: Record<string, any>) => void>();
  let nextId = 1;
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise<void>((resolve) => {
    child.on('message', (m: Record<string, any>) => {
      if (typeof m.id === 'number') pending.get(m.id)?.(m);
      else events.push(m);
      if (m.event === 'ready') resolve();
    });
  });
  await ready;
  return {
    child,
    events,
    exited,
    request(cmd) {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        child.send({ id, cmd });
      });
    },
  };
}

describe('native engine host', () => {
  it('a spare named for its pipeline says so in its cmdline, as a host started for it does', async () => {
    const h = await startHost(['--spare', ' '.repeat(72)]);
    const cmdline = () => readFileSync(`/proc/${h.child.pid}/cmdline`, 'latin1').replace(/\0+$/, '').split('\0');
    expect(cmdline()).toEqual([HOST, '--spare', ' '.repeat(72)]);
    expect(await h.request({ op: 'name', pipeline: 'cam-1' })).toEqual({ id: 1, ok: true, result: null });
    expect(cmdline()).toEqual([HOST, '--pipeline', 'cam-1']);
    expect((await h.request({ op: 'name' })).error).toEqual({ code: 'NG_ERR_ARG', message: 'name needs a pipeline' });
  });

  it('says ready with its pid, plays, sets, reports state and stats, stops', async () => {
    const h = await startHost();
    expect(h.events[0]).toEqual({ event: 'ready', pid: h.child.pid });
    const played = await h.request({
      op: 'play', timeoutMs: 5000, description: 'videotestsrc is-live=true ! x264enc name=enc tune=zerolatency ! fakesink name=out',
      meters: { frames: { element: 'enc', pad: 'src' }, internalSinks: [] },
    });
    expect(played).toEqual({ id: 1, ok: true, result: { state: 'playing' } });
    expect(await h.request({ op: 'set', changes: [{ element: 'enc', property: 'bitrate', value: 600 }] })).toMatchObject({ ok: true });
    expect(await h.request({ op: 'state' })).toMatchObject({ ok: true, result: { state: 'playing', rtspClients: 0 } });
    await new Promise((r) => setTimeout(r, 1200));
    const stats = h.events.filter((e) => e.event === 'stats');
    expect(stats.length).toBeGreaterThan(0);
    expect(stats.at(-1)!.sample.frames).toBeGreaterThan(0);
    expect(h.events.some((e) => e.event === 'state' && e.state === 'playing')).toBe(true);
    expect(await h.request({ op: 'stop', eos: true, timeoutMs: 2000 })).toMatchObject({ ok: true, result: { state: 'null' } });
    h.child.disconnect();
    expect(await h.exited).toEqual({ code: 0, signal: null });
  });

  it('stats with an RTSP service carry its clients and serviceEventsDropped 0 (no queue between its server and the core)', async () => {
    const h = await startHost();
    const waitStats = async (n: number) => {
      for (let i = 0; i < 100 && h.events.filter((e) => e.event === 'stats').length < n; i++) await new Promise((r) => setTimeout(r, 50));
      return h.events.filter((e) => e.event === 'stats').at(-1)!.sample;
    };
    expect(await h.request({
      op: 'play', timeoutMs: 5000, meters: { internalSinks: ['feed'] },
      description: 'videotestsrc is-live=true ! video/x-raw,width=160,height=120 ! x264enc tune=zerolatency ! appsink name=feed sync=false',
      services: [{ kind: 'rtsp', mode: 'feed', host: '127.0.0.1', port: 0, path: '/live', feeds: [{ appsink: 'feed', launch: 'h264parse ! rtph264pay name=pay0 pt=96' }] }],
    })).toMatchObject({ ok: true });
    expect(await waitStats(1)).toMatchObject({ rtspClients: 0, serviceEventsDropped: 0 });
    expect(await h.request({ op: 'stop', eos: false, timeoutMs: 1000 })).toMatchObject({ ok: true });
    const played = h.events.filter((e) => e.event === 'stats').length;
    expect(await h.request({
      op: 'play', timeoutMs: 5000, meters: { internalSinks: [] }, description: 'videotestsrc is-live=true ! fakesink',
    })).toMatchObject({ ok: true });
    const without = await waitStats(played + 1);
    expect(without.rtspClients).toBeNull();
    expect('serviceEventsDropped' in without).toBe(false);
  });

  it('answers with the addon\'s codes and texts', async () => {
    const h = await startHost();
    expect((await h.request({ op: 'play', timeoutMs: 1000, description: 'videotestsrc ! nosuchelement' })).error)
      .toEqual({ code: 'NG_ERR_PARSE', message: 'no element "nosuchelement"' });
    expect((await h.request({ op: 'set', changes: [] })).error).toEqual({ code: 'NG_ERR_DESTROYED', message: 'the pipeline is not running' });
    await h.request({ op: 'play', timeoutMs: 5000, description: 'videotestsrc is-live=true ! fakesink name=out' });
    expect((await h.request({ op: 'set', changes: [{ element: 'nope', property: 'x', value: 1 }] })).error)
      .toEqual({ code: 'NG_ERR_NO_ELEMENT', message: "no element named 'nope' in the pipeline" });
    expect((await h.request({ op: 'set', changes: [{ element: 'out', property: 'nope', value: 1 }] })).error)
      .toEqual({ code: 'NG_ERR_NO_PROPERTY', message: "out has no writable property 'nope'" });
    expect((await h.request({ op: 'set', changes: [{ element: 'out', property: 'sync', value: 3 }] })).error)
      .toEqual({ code: 'NG_ERR_VALUE', message: 'out.sync: the value does not fit sync (gboolean)' });
    const failed = await h.request({ op: 'play', timeoutMs: 2000, description: 'filesrc location=/nonexistent/x ! fakesink' });
    expect(failed.error.code).toBe('NG_ERR_STATE');
    expect(failed.error.message).toMatch(/^state change to playing failed: /);
    expect(failed.error.cause.source).toBe('filesrc0');
    h.child.kill('SIGTERM');
    expect(await h.exited).toEqual({ code: 0, signal: null });
  });

  it('inspects a description without playing it, and probes a source\'s caps', async () => {
    const h = await startHost();
    const inspected = await h.request({ op: 'inspect', description: 'videotestsrc name=src pattern=ball ! fakesink name=out' });
    const src = inspected.result.find((e: { name: string }) => e.name === 'src');
    expect(src).toMatchObject({ factory: 'videotestsrc', properties: { pattern: 'ball' } });
    const probed = await h.request({ op: 'probe', timeoutMs: 5000, sink: 'probe', description: 'videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 ! appsink name=probe' });
    expect(probed.result).toMatch(/^video\/x-raw, .*width=\(int\)64, height=\(int\)48/);
    const none = await h.request({ op: 'probe', timeoutMs: 300, sink: 'probe', description: 'videotestsrc is-live=true ! valve drop=true ! appsink name=probe' });
    expect(none.error).toEqual({ code: 'NG_ERR_TIMEOUT', message: 'the source sent no video within 300 ms' });
  });

  it('delivers watched samples as base64 and takes pushed buffers', async () => {
    const h = await startHost();
    await h.request({
      op: 'play', timeoutMs: 5000, watchSinks: ['sink'],
      description: 'appsrc name=src format=time is-live=true caps=application/x-test ! appsink name=sink sync=false async=false',
    });
    expect(await h.request({ op: 'push', appsrc: 'src', data: Buffer.from('hello').toString('base64'), ptsNs: 0 })).toMatchObject({ ok: true });
    const deadline = Date.now() + 3000;
    while (!h.events.some((e) => e.event === 'sample') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const sample = h.events.find((e) => e.event === 'sample')!;
    expect(sample).toMatchObject({ sink: 'sink', pts: 0 });
    expect(Buffer.from(sample.data, 'base64').toString()).toBe('hello');
  });

  it('play → stop cycles (with samples, stats and an RTSP feed) leave no file descriptor behind', async () => {
    const h = await startHost();
    const fds = () => readdirSync(`/proc/${h.child.pid}/fd`).length;
    const play = {
      op: 'play', timeoutMs: 5000, watchSinks: ['grab'],
      description: 'videotestsrc is-live=true ! video/x-raw,width=160,height=120 ! x264enc name=enc tune=zerolatency ! tee name=t '
        + '! queue ! mpegtsmux ! fakesink name=out t. ! queue ! appsink name=grab t. ! queue ! appsink name=feed sync=false',
      meters: { frames: { element: 'enc', pad: 'src' }, internalSinks: ['grab', 'feed'] },
      rtsp: { mode: 'feed', host: '127.0.0.1', port: 0, path: '/live', feeds: [{ appsink: 'feed', launch: 'h264parse ! rtph264pay name=pay0 pt=96' }] },
    };
    const cycle = async () => {
      expect(await h.request(play)).toMatchObject({ ok: true });
      await new Promise((r) => setTimeout(r, 50));
      // No end-of-stream: a producer's feed appsink holds it (the addon's too), and the wait would only slow the test.
      expect(await h.request({ op: 'stop', eos: false, timeoutMs: 1000 })).toMatchObject({ ok: true });
    };
    for (let i = 0; i < 3; i++) await cycle();
    const before = fds();
    for (let i = 0; i < 15; i++) await cycle();
    // A stop's last fds close on GStreamer's threads a moment after its reply (9 against 7 once, read at once under a
    // full suite's load); a leak of the pipeline's bus would be 2 a cycle, 30 here, and would never come back.
    const deadline = Date.now() + 5000;
    while (fds() > before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(fds()).toBeLessThanOrEqual(before);
  });
});

