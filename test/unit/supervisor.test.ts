/**
 * The supervisor's transitions (core/pipeline/supervisor.ts), driven through the manager over fake engine hosts
 * (test/helpers/fake-host.ts) with fake timers: no process, no GStreamer, no real waiting. Backoff is 100 ms
 * doubling to 400 ms.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../core/errors/catalogue';
import type { HostCommand } from '../../core/engine/protocol';
import { fakeManager, udpBody, type FakeEngineHost } from '../helpers/fake-host';

let t: ReturnType<typeof fakeManager>;

/** A media file for a finite source (binary bytes: the file plugin refuses text) and a recording beside it. */
const dir = mkdtempSync(join(tmpdir(), 'encoderd-supervisor-'));
const mediaFile = join(dir, 'clip.ts');
writeFileSync(mediaFile, Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256)));
const recording = join(dir, 'rec.ts');
// The output's own check (OutputPlugin.check) finds the recording there, as a real host would have made it.
writeFileSync(recording, '');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeEach(() => {
  vi.useFakeTimers();
  t = fakeManager();
});

afterEach(async () => {
  await t.manager.shutdown();
  vi.useRealTimers();
});

/** Lets queued work run (no timer is due at +0). */
const settle = () => vi.advanceTimersByTimeAsync(0);

function plays(host: FakeEngineHost | undefined): Extract<HostCommand, { op: 'play' }>[] {
  return (host?.commands ?? []).filter((c): c is Extract<HostCommand, { op: 'play' }> => c.op === 'play');
}

function stops(host: FakeEngineHost | undefined): Extract<HostCommand, { op: 'stop' }>[] {
  return (host?.commands ?? []).filter((c): c is Extract<HostCommand, { op: 'stop' }> => c.op === 'stop');
}

async function playing(id: string, extra: Record<string, unknown> = {}) {
  const view = await t.manager.create(udpBody(id, extra));
  expect(view.state).toBe('playing');
  return t.hosts.latest(id)!;
}

async function apiError(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('crash while playing', () => {
  it('reports the crash, shows ready, and plays again in a new host after the first backoff', async () => {
    const first = await playing('p');
    first.crash();
    await settle();
    expect(t.events).toContainEqual(expect.objectContaining({ type: 'error', id: 'p', message: 'engine host exited unexpectedly (SIGKILL)' }));
    expect(t.manager.get('p').state).toBe('ready');
    await vi.advanceTimersByTimeAsync(99);
    expect(t.hosts.of('p')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    const second = t.hosts.latest('p')!;
    expect(second).not.toBe(first);
    expect(plays(second)).toHaveLength(1);
    expect(t.manager.get('p')).toMatchObject({ state: 'playing', started_by: 'api' });
    expect(t.manager.metricsRows()[0].counters.host_restarts).toBe(1);
  });

  it('a pipeline that is not wanted playing gets a new host only', async () => {
    await playing('idle');
    await t.manager.stop('idle');
    t.hosts.latest('idle')!.crash();
    await vi.advanceTimersByTimeAsync(100);
    expect(t.hosts.of('idle')).toHaveLength(2);
    expect(t.hosts.latest('idle')!.alive).toBe(true);
    expect(plays(t.hosts.latest('idle'))).toHaveLength(0);
    expect(t.manager.get('idle').state).toBe('ready');
  });

  it('a lost source halts the run, counts a reconnect and plays again after the backoff, in the same host', async () => {
    const host = await playing('lost');
    host.send({ event: 'eos' });
    await settle();
    expect(host.commands.at(-1)).toMatchObject({ op: 'stop' });
    expect(t.manager.get('lost')).toMatchObject({ state: 'ready', last_error: 'the source ended the stream; reconnecting' });
    await vi.advanceTimersByTimeAsync(100);
    expect(t.hosts.of('lost')).toHaveLength(1);
    expect(plays(host)).toHaveLength(2);
    expect(t.manager.get('lost').state).toBe('playing');
    expect(t.manager.metricsRows()[0].counters.source_reconnects).toBe(1);
  });

  it('stop during the backoff cancels the restart', async () => {
    (await playing('calm')).crash();
    await settle();
    await t.manager.stop('calm');
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.hosts.of('calm')).toHaveLength(1);
    expect(t.manager.get('calm').state).toBe('ready');
  });
});

describe('crash while starting', () => {
  it('during a play: the play answers 503, playing is no longer wanted, and only a host comes back', async () => {
    await playing('s');
    await t.manager.stop('s');
    t.hosts.hold('play');
    const play = t.manager.play('s');
    await settle();
    const host = t.hosts.latest('s')!;
    expect(host.holding('play')).toBe(true);
    host.crash();
    expect((await apiError(play)).code).toBe('ENGINE_UNAVAILABLE');
    expect(t.manager.get('s')).toMatchObject({ state: 'ready', health: 'failing' });
    await vi.advanceTimersByTimeAsync(100);
    expect(t.hosts.of('s')).toHaveLength(2);
    expect(plays(t.hosts.latest('s'))).toHaveLength(0);
    expect(t.manager.get('s').state).toBe('ready');
  });

  it('during a recovery: the backoff doubles and the next attempt plays', async () => {
    (await playing('r')).crash();
    await settle();
    t.hosts.hold('play');
    await vi.advanceTimersByTimeAsync(100);
    const recovering = t.hosts.latest('r')!;
    expect(recovering.holding('play')).toBe(true);
    recovering.crash();
    await settle();
    expect(t.manager.get('r').state).toBe('ready');
    await vi.advanceTimersByTimeAsync(199);
    expect(t.hosts.of('r')).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.hosts.of('r')).toHaveLength(3);
    expect(t.manager.get('r').state).toBe('playing');
  });

  it('a host that never starts: play answers 503 ENGINE_UNAVAILABLE, and plays once hosts start again', async () => {
    await playing('h');
    await t.manager.stop('h');
    t.hosts.latest('h')!.crash();
    t.hosts.failStarts(100);
    const refused = await apiError(t.manager.play('h'));
    expect(refused.code).toBe('ENGINE_UNAVAILABLE');
    t.hosts.clear();
    expect((await t.manager.play('h')).state).toBe('playing');
  });
});

describe('crash while stopping', () => {
  it('the stop completes as ready, the crash is reported, and a host (not playback) comes back', async () => {
    const host = await playing('st');
    t.hosts.hold('stop');
    const stop = t.manager.stop('st');
    await settle();
    expect(host.holding('stop')).toBe(true);
    host.crash();
    expect((await stop).state).toBe('ready');
    expect(t.events).toContainEqual(expect.objectContaining({ type: 'error', id: 'st' }));
    await vi.advanceTimersByTimeAsync(100);
    expect(t.hosts.of('st')).toHaveLength(2);
    expect(plays(t.hosts.latest('st'))).toHaveLength(0);
    expect(t.manager.get('st').state).toBe('ready');
  });
});

describe('backoff', () => {
  it('doubles from the base at each failed recovery, stays at its ceiling, and starts again from the base after a success', async () => {
    (await playing('b')).crash();
    await settle();
    const crashedAt = Date.now();
    t.hosts.failStarts(4);
    await vi.advanceTimersByTimeAsync(100 + 200 + 400 + 400 + 400);
    const at = t.hosts.madeAt.slice(1).map((ms) => ms - crashedAt);
    expect(at).toEqual([100, 300, 700, 1100, 1500]);
    expect(t.manager.get('b').state).toBe('playing');
    t.hosts.latest('b')!.crash();
    await settle();
    const again = Date.now();
    await vi.advanceTimersByTimeAsync(100);
    expect(t.hosts.madeAt.at(-1)! - again).toBe(100);
    expect(t.manager.get('b').state).toBe('playing');
  });

  it('comes from the configuration', async () => {
    await t.manager.shutdown();
    t = fakeManager({ restartBaseMs: 1000, restartMaxMs: 1500 });
    (await playing('c')).crash();
    await settle();
    t.hosts.failStarts(1);
    const crashedAt = Date.now();
    await vi.advanceTimersByTimeAsync(1000 + 1500);
    expect(t.hosts.madeAt.slice(1).map((ms) => ms - crashedAt)).toEqual([1000, 2500]);
  });
});

describe('rebuild with rollback', () => {
  it('a size change whose start fails answers 504, restores the previous encoding, and keeps playing wanted', async () => {
    const host = await playing('size');
    t.hosts.failPlays(1);
    const refused = await apiError(t.manager.patch('size', { encoding: { width: 480, height: 270 } }));
    expect(refused.code).toBe('PIPELINE_START_TIMEOUT');
    expect(t.manager.get('size')).toMatchObject({ state: 'playing', encoding: { width: 320, height: 240 } });
    const [, failed, restored] = plays(host);
    expect(failed.description).toContain('width=480,height=270');
    expect(restored.description).toContain('width=320,height=240');
  });

  it('regression: after a failed rebuild rolled back, a host crash brings back the playback, not only the host', async () => {
    await playing('rb');
    t.hosts.failPlays(1);
    await apiError(t.manager.patch('rb', { encoding: { width: 480, height: 270 } }));
    t.hosts.latest('rb')!.crash();
    await settle();
    await vi.advanceTimersByTimeAsync(100);
    expect(plays(t.hosts.latest('rb'))).toHaveLength(1);
    expect(t.manager.get('rb')).toMatchObject({ state: 'playing', encoding: { width: 320, height: 240 } });
  });

  it('regression: after a failed rebuild rolled back, a lost source brings back the playback', async () => {
    const host = await playing('rs');
    t.hosts.failPlays(1);
    await apiError(t.manager.patch('rs', { encoding: { fps: 25 } }));
    host.send({ event: 'eos' });
    await settle();
    expect(t.manager.get('rs').state).toBe('ready');
    await vi.advanceTimersByTimeAsync(100);
    expect(t.manager.get('rs').state).toBe('playing');
  });

  it('when the previous encoding fails too, recovery with backoff brings it back', async () => {
    const host = await playing('both');
    t.hosts.failPlays(2);
    await apiError(t.manager.patch('both', { encoding: { width: 480, height: 270 } }));
    expect(t.manager.get('both')).toMatchObject({ state: 'ready', encoding: { width: 320 } });
    await vi.advanceTimersByTimeAsync(100);
    expect(plays(host)).toHaveLength(4);
    expect(t.manager.get('both')).toMatchObject({ state: 'playing', encoding: { width: 320 } });
  });
});

describe('on demand', () => {
  const od = { on_demand: true, output: { uri: 'rtsp://127.0.0.1:8554/od' } };

  it('listens, plays while a client watches, and is ready again when the last one leaves', async () => {
    const view = await t.manager.create(udpBody('od', od));
    expect(view.state).toBe('ready');
    const host = t.hosts.latest('od')!;
    expect(plays(host)[0].services?.[0]).toMatchObject({ mode: 'launch' });
    host.send({ event: 'service', kind: 'rtsp', type: 'media-prepared' });
    await settle();
    expect(t.manager.get('od')).toMatchObject({ state: 'playing', started_by: 'on_demand' });
    host.send({ event: 'service', kind: 'rtsp', type: 'media-unprepared' });
    await settle();
    expect(t.manager.get('od').state).toBe('ready');
  });

  it('the last client leaving keeps the server listening: nothing is stopped, and the next client plays again', async () => {
    await t.manager.create(udpBody('odl', od));
    const host = t.hosts.latest('odl')!;
    host.send({ event: 'service', kind: 'rtsp', type: 'media-prepared' });
    await settle();
    host.send({ event: 'service', kind: 'rtsp', type: 'media-unprepared' });
    await settle();
    expect(host.commands.map((c) => c.op)).toEqual(['play']);
    host.send({ event: 'service', kind: 'rtsp', type: 'media-prepared' });
    await settle();
    expect(t.manager.get('odl')).toMatchObject({ state: 'playing', started_by: 'on_demand' });
  });

  it('a client arriving during a restart is served once the new host listens; the dead host is not heard', async () => {
    await t.manager.create(udpBody('odr', od));
    const dead = t.hosts.latest('odr')!;
    dead.crash();
    await settle();
    t.hosts.hold('play');
    await vi.advanceTimersByTimeAsync(100);
    const fresh = t.hosts.latest('odr')!;
    expect(fresh).not.toBe(dead);
    expect(fresh.holding('play')).toBe(true);
    dead.send({ event: 'service', kind: 'rtsp', type: 'media-prepared' });
    fresh.send({ event: 'service', kind: 'rtsp', type: 'media-prepared' });
    await settle();
    expect(t.manager.get('odr').state).toBe('ready');
    fresh.release('play');
    await settle();
    expect(t.manager.get('odr')).toMatchObject({ state: 'playing', started_by: 'on_demand' });
  });
});

describe('delete during a restart', () => {
  it('during the backoff: nothing restarts, watchers hear of the delete', async () => {
    (await playing('d')).crash();
    await settle();
    await t.manager.delete('d', false);
    await vi.advanceTimersByTimeAsync(2000);
    expect(t.hosts.of('d')).toHaveLength(1);
    expect(t.manager.has('d')).toBe(false);
    expect(t.events).toContainEqual({ type: 'deleted', id: 'd' });
  });

  it('while the new host is starting: the delete waits for it, then nothing restarts again', async () => {
    (await playing('ds')).crash();
    await settle();
    t.hosts.hold('start');
    await vi.advanceTimersByTimeAsync(100);
    const starting = t.hosts.latest('ds')!;
    expect(starting.holding('start')).toBe(true);
    const deleted = t.manager.delete('ds', false);
    starting.crash();
    await deleted;
    await vi.advanceTimersByTimeAsync(2000);
    expect(t.hosts.of('ds')).toHaveLength(2);
    expect(t.manager.has('ds')).toBe(false);
  });
});

describe('shutdown', () => {
  it('stops what plays, ends the hosts, and a crash after it restarts nothing', async () => {
    const host = await playing('sd');
    await t.manager.shutdown();
    expect(host.commands.at(-1)).toMatchObject({ op: 'stop' });
    expect(host.alive).toBe(false);
    await vi.advanceTimersByTimeAsync(2000);
    expect(t.hosts.of('sd')).toHaveLength(1);
  });
});

describe('idle: play', () => {
  it('takes the output\'s claim: a play whose output another pipeline holds now answers 409 and stays ready', async () => {
    const first = await playing('first');
    await t.manager.stop('first');
    await playing('second');
    expect((await apiError(t.manager.play('first'))).code).toBe('PIPELINE_CONFLICT');
    expect(t.manager.get('first').state).toBe('ready');
    expect(plays(first)).toHaveLength(1);
  });

  it('takes the admission figure: a start past the total pixel rate answers 409 and nothing plays', async () => {
    await t.manager.shutdown();
    t = fakeManager({ maxTotalPixelRate: 320 * 240 * 30 });
    await playing('one');
    const refused = await apiError(t.manager.create(udpBody('two', { output: { uri: 'udp://127.0.0.1:5006' } })));
    expect(refused.code).toBe('PIPELINE_CONFLICT');
    expect(t.manager.get('two').state).toBe('ready');
    expect(plays(t.hosts.latest('two'))).toHaveLength(0);
  });
});

describe('starting: the start fails', () => {
  it('an operator\'s play the host refuses answers 504, leaves it ready and failing, and nothing retries', async () => {
    const host = await playing('pf');
    await t.manager.stop('pf');
    t.hosts.failPlays(1);
    expect((await apiError(t.manager.play('pf'))).code).toBe('PIPELINE_START_TIMEOUT');
    expect(t.manager.get('pf')).toMatchObject({ state: 'ready', health: 'failing', last_error: expect.stringContaining('fault injected') });
    await vi.advanceTimersByTimeAsync(2000);
    expect(plays(host)).toHaveLength(2);
    expect(t.hosts.of('pf')).toHaveLength(1);
    expect(t.manager.get('pf').state).toBe('ready');
  });

  it('a create the host refuses answers 504 and keeps the pipeline, ready, with its error', async () => {
    t.hosts.failPlays(1);
    expect((await apiError(t.manager.create(udpBody('cf')))).code).toBe('PIPELINE_START_TIMEOUT');
    expect(t.manager.get('cf')).toMatchObject({ state: 'ready', last_error: expect.stringContaining('fault injected') });
    await vi.advanceTimersByTimeAsync(2000);
    expect(plays(t.hosts.latest('cf'))).toHaveLength(1);
  });

  it('a host that dies during a create\'s start: the create answers 504, and only a host comes back', async () => {
    t.hosts.hold('play');
    const create = t.manager.create(udpBody('cd'));
    await settle();
    const host = t.hosts.latest('cd')!;
    expect(host.holding('play')).toBe(true);
    host.crash();
    expect((await apiError(create)).code).toBe('PIPELINE_START_TIMEOUT');
    await vi.advanceTimersByTimeAsync(100);
    expect(t.hosts.of('cd')).toHaveLength(2);
    expect(plays(t.hosts.latest('cd'))).toHaveLength(0);
    expect(t.manager.metricsRows()[0].counters.host_restarts).toBe(1);
  });

  it('a stored auto_start pipeline whose restore fails is retried after the backoff, started by auto_start', async () => {
    await playing('auto');
    await t.manager.storage.create('auto', { auto_start: true });
    await t.manager.shutdown();
    t = fakeManager({}, t.store);
    t.hosts.failPlays(1);
    await t.manager.restore();
    expect(t.manager.get('auto')).toMatchObject({ state: 'ready', health: 'failing' });
    await vi.advanceTimersByTimeAsync(99);
    expect(plays(t.hosts.latest('auto'))).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(plays(t.hosts.latest('auto'))).toHaveLength(2);
    expect(t.manager.get('auto')).toMatchObject({ state: 'playing', started_by: 'auto_start' });
  });
});

describe('playing, listening: stop', () => {
  it('a recording is stopped with EOS, so its file is finalised; a UDP stream without', async () => {
    const rec = await playing('rec', { output: { uri: recording } });
    const udp = await playing('udp');
    await t.manager.stop('rec');
    await t.manager.stop('udp');
    expect(stops(rec)).toEqual([expect.objectContaining({ eos: true })]);
    expect(stops(udp)).toEqual([expect.objectContaining({ eos: false })]);
  });

  it('an on-demand pipeline that listens stops listening, is not restarted, and listens again at play', async () => {
    await t.manager.create(udpBody('ods', { on_demand: true, output: { uri: 'rtsp://127.0.0.1:8554/ods' } }));
    const host = t.hosts.latest('ods')!;
    await t.manager.stop('ods');
    expect(stops(host)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2000);
    expect(plays(host)).toHaveLength(1);
    await t.manager.play('ods');
    expect(plays(host)).toHaveLength(2);
    expect(t.manager.get('ods').state).toBe('ready');
  });
});

describe('playing: the source ends or fails', () => {
  it('a finite source that ends: the run is halted, playing is no longer wanted, and nothing restarts', async () => {
    const body = { id: 'fin', mode: 'simple', source: { uri: `file://${mediaFile}` }, output: { uri: 'udp://127.0.0.1:5004' } };
    expect((await t.manager.create(body)).state).toBe('playing');
    const host = t.hosts.latest('fin')!;
    host.send({ event: 'eos' });
    await settle();
    expect(stops(host)).toHaveLength(1);
    expect(t.manager.get('fin')).toMatchObject({ state: 'ready', last_error: null });
    await vi.advanceTimersByTimeAsync(2000);
    expect(plays(host)).toHaveLength(1);
    expect(t.manager.metricsRows()[0].counters.source_reconnects).toBe(0);
  });

  it('a bus error halts the run without EOS, counts a reconnect and plays again after the backoff', async () => {
    const host = await playing('err', { output: { uri: recording } });
    host.send({ event: 'error', message: 'Internal data stream error.', source: 'enc', debug: '' });
    await settle();
    expect(stops(host)).toEqual([expect.objectContaining({ eos: false })]);
    expect(t.manager.get('err')).toMatchObject({ state: 'ready', last_error: 'Internal data stream error.' });
    expect(t.events).toContainEqual({ type: 'error', id: 'err', message: 'Internal data stream error.' });
    await vi.advanceTimersByTimeAsync(100);
    expect(plays(host)).toHaveLength(2);
    expect(t.manager.get('err').state).toBe('playing');
    expect(t.manager.metricsRows()[0].counters.source_reconnects).toBe(1);
  });

  it('a silent source (its loss message) halts the run with EOS first, counts a reconnect and plays again', async () => {
    const host = await playing('mute', { source: { uri: 'udp://127.0.0.1:5010' }, output: { uri: recording } });
    host.send({ event: 'element', source: 'src', name: 'GstUDPSrcTimeout', fields: {} });
    await settle();
    expect(stops(host)).toEqual([expect.objectContaining({ eos: true })]);
    expect(t.manager.get('mute')).toMatchObject({ state: 'ready', last_error: 'the source went silent (GstUDPSrcTimeout); reconnecting' });
    await vi.advanceTimersByTimeAsync(100);
    expect(plays(host)).toHaveLength(2);
    expect(t.manager.get('mute').state).toBe('playing');
    expect(t.manager.metricsRows()[0].counters.source_reconnects).toBe(1);
  });
});

describe('playing: PATCH of width, height or fps', () => {
  it('stops the run and starts the new encoding in the same host', async () => {
    const host = await playing('grow');
    const view = await t.manager.patch('grow', { encoding: { width: 640, height: 480 } });
    expect(view).toMatchObject({ state: 'playing', encoding: { width: 640, height: 480 } });
    expect(host.commands.map((c) => c.op)).toEqual(['play', 'stop', 'play']);
    expect(plays(host)[1].description).toContain('width=640,height=480');
    expect(t.hosts.of('grow')).toHaveLength(1);
  });
});

describe('delete', () => {
  it('while idle: the host ends, watchers hear of it, nothing restarts', async () => {
    const host = await playing('di');
    await t.manager.stop('di');
    await t.manager.delete('di', false);
    expect(host.alive).toBe(false);
    expect(t.manager.has('di')).toBe(false);
    expect(t.events).toContainEqual({ type: 'deleted', id: 'di' });
    await vi.advanceTimersByTimeAsync(2000);
    expect(t.hosts.of('di')).toHaveLength(1);
  });

  it('while an on-demand pipeline listens: its server is stopped, the host ends, nothing restarts', async () => {
    await t.manager.create(udpBody('dl', { on_demand: true, output: { uri: 'rtsp://127.0.0.1:8554/dl' } }));
    const host = t.hosts.latest('dl')!;
    await t.manager.delete('dl', false);
    expect(stops(host)).toHaveLength(1);
    expect(host.alive).toBe(false);
    expect(t.manager.has('dl')).toBe(false);
    await vi.advanceTimersByTimeAsync(2000);
    expect(t.hosts.of('dl')).toHaveLength(1);
  });

  it('while playing: 409 CONFLICT (stop first), and it plays on untouched', async () => {
    const host = await playing('dp');
    const refused = await apiError(t.manager.delete('dp', false));
    expect(refused).toMatchObject({ code: 'CONFLICT', status: 409 });
    expect(t.manager.get('dp').state).toBe('playing');
    expect(host.alive).toBe(true);
    expect(stops(host)).toHaveLength(0);
  });
});

describe('the transition table', () => {
  /** The rows of the first markdown table after `from` in text (cells trimmed). */
  function rows(text: string): string[][] {
    const lines = text.split('\n').map((l) => l.replace(/^\s*\*\s?/, '').trim());
    const start = lines.findIndex((l) => /^\|\s*from\s*\|/.test(l));
    const table: string[][] = [];
    for (const l of lines.slice(start)) {
      if (!l.startsWith('|')) break;
      if (/^\|[-|\s]+\|$/.test(l)) continue;
      table.push(l.slice(1, -1).split('|').map((c) => c.trim()));
    }
    return table;
  }

  it('in docs/operations.md is the one in the supervisor\'s doc comment', () => {
    const root = join(__dirname, '../..');
    const documented = rows(readFileSync(join(root, 'docs/operations.md'), 'utf8'));
    const commented = rows(readFileSync(join(root, 'core/pipeline/supervisor.ts'), 'utf8'));
    expect(documented.length).toBeGreaterThan(10);
    expect(commented).toEqual(documented);
  });
});
