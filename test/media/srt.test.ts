// SRT output and source through the real service over HTTPS, against real peers on 127.0.0.1: ffprobe (video and KLV) and
// gst-launch-1.0 srtsrc reading a listener output, gst-launch srtsrc listeners taking a caller output (started
// before it and after it), another encoderd pipeline's listener output as a source (re-encoded, and passed
// through), passphrase mismatches as the operator sees them, SRT's own figures in stats.transport, and refusals.
// The passphrase is a secret: never in a response, the logs (engine hosts' included) or the data dir.
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, hostPidsByPipeline, run, startService, waitFor, type RunningService } from '../helpers/service';
import { body, expectReceived, FRAME, receive, tsTail, type Receiver } from './receivers';

const PASSPHRASE = `pw-${randomBytes(8).toString('hex')}`;

let svc: RunningService;
let logs = '';

beforeAll(async () => {
  svc = await startService({ args: ['--start-timeout-ms', '8000', '--log-level', 'debug'] });
  svc.child.stdout?.on('data', (d: Buffer) => { logs += d.toString(); });
  svc.child.stderr?.on('data', (d: Buffer) => { logs += d.toString(); });
});

afterAll(async () => {
  await svc?.stop();
});

/** A UDP port nobody holds now (SRT runs over UDP). */
async function freeUdpPort(): Promise<number> {
  const sock = createSocket('udp4');
  await new Promise<void>((r) => sock.bind(0, '0.0.0.0', () => r()));
  const { port } = sock.address();
  await new Promise<void>((r) => sock.close(() => r()));
  return port;
}

/** Whether something has bound UDP port (an SRT listener is up). */
async function udpBound(port: number): Promise<boolean> {
  const sock = createSocket('udp4');
  return new Promise((resolve) => {
    sock.once('error', () => resolve(true));
    sock.bind(port, '0.0.0.0', () => sock.close(() => resolve(false)));
  });
}

async function create(b: object): Promise<Record<string, any>> {
  const r = await svc.api('POST', '/svc/pipeline', b);
  expect(r.status, r.text).toBe(201);
  expect(r.body.state).toBe('playing');
  return r.body;
}

async function remove(id: string): Promise<void> {
  await svc.api('PUT', `/svc/pipeline/${id}/stop`);
  const r = await svc.api('DELETE', `/svc/pipeline/${id}`);
  expect(r.status, r.text).toBe(204);
}

/** The pipeline object, once pred holds for it. */
function until(id: string, pred: (view: Record<string, any>) => boolean, timeoutMs = 15000): Promise<Record<string, any>> {
  return waitFor(async () => {
    const r = await svc.api('GET', `/svc/pipeline/${id}`);
    return r.status === 200 && pred(r.body) ? r.body : null;
  }, timeoutMs, 250);
}

/** A listening gst-launch srtsrc, once its port is bound. */
async function listener(port: number, tail: string, query = ''): Promise<Receiver> {
  const rx = receive(`srtsrc uri=srt://:${port}?mode=listener${query} ! ${tail}`, 30000);
  // gst-launch loads its plugins first: under a full suite the bind once took more than 10 s.
  await waitFor(() => udpBound(port), 20000, 50);
  return rx;
}

async function ffprobe(uri: string): Promise<Array<{ codec_name: string; codec_type: string; width?: number; height?: number }>> {
  const r = await run('ffprobe', ['-v', 'quiet', '-analyzeduration', '2500000', '-show_entries', 'stream=codec_name,codec_type,width,height', '-of', 'json', uri], { timeoutMs: 20000 });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { streams: Array<{ codec_name: string; codec_type: string; width?: number; height?: number }> }).streams;
}

/** Whether the engine host of pipeline id has an encoder library mapped (GStreamer loads a plugin's .so on first use). */
async function loadsEncoder(id: string): Promise<boolean> {
  const pid = (await hostPidsByPipeline(svc.child.pid!)).get(id);
  expect(pid, `engine host of ${id}`).toBeDefined();
  return /libx264\.so|libgstx264\.so/.test(readFileSync(`/proc/${pid}/maps`, 'utf8'));
}

describe('an SRT listener output', () => {
  let port: number;
  beforeAll(async () => {
    port = await freeUdpPort();
    // Playing at once, with nobody connected: a listener never waits for a caller.
    await create(body('srt-listen', 'h264', `srt://0.0.0.0:${port}`));
  });
  afterAll(async () => remove('srt-listen'));

  it('is read by ffprobe: the video, and the KLV stream MPEG-TS carries beside it', async () => {
    const streams = await ffprobe(`srt://127.0.0.1:${port}`);
    expect(streams.find((s) => s.codec_type === 'video')).toMatchObject({ codec_name: 'h264', width: FRAME.width, height: FRAME.height });
    expect(streams.find((s) => s.codec_type === 'data')).toMatchObject({ codec_name: 'klv' });
  });

  it('is decoded by gst-launch-1.0 srtsrc', async () => {
    await expectReceived(receive(`srtsrc uri=srt://127.0.0.1:${port} ! ${tsTail('h264', 15)}`));
  });

  it('reports SRT\'s own figures in stats.transport while a caller reads it, and as metrics', async () => {
    const rx = receive(`srtsrc uri=srt://127.0.0.1:${port} ! fakesink sync=false`, 30000);
    try {
      const view = await until('srt-listen', (v) => v.stats?.transport?.output?.connections === 1 && v.stats.transport.output.packets_sent > 0);
      const t = view.stats.transport.output;
      for (const figure of ['rtt_ms', 'packets_sent', 'packets_lost', 'packets_retransmitted', 'send_rate_kbps', 'latency_ms', 'bytes_sent']) {
        expect(typeof t[figure], figure).toBe('number');
      }
      expect(t.latency_ms).toBeGreaterThanOrEqual(120);
      expect(view.stats.transport.source).toBeUndefined();
      const metrics = await svc.api('GET', '/svc/metrics');
      expect(metrics.text).toMatch(/encoderd_pipeline_transport\{pipeline="srt-listen",[^}]*side="output",figure="rtt_ms"\} \d/);
    } finally {
      rx.child.kill('SIGKILL');
    }
  });
});

describe('an SRT caller output', () => {
  it('into a gst-launch srtsrc listener started before it', async () => {
    const port = await freeUdpPort();
    const rx = await listener(port, tsTail('h264', 30));
    await create(body('srt-call1', 'h264', `srt://127.0.0.1:${port}`));
    // While connected: the caller's own figures (the receiver's end closes the connection).
    const connected = until('srt-call1', (v) => v.stats?.transport?.output?.packets_sent > 0 && v.stats.transport.output.rtt_ms !== undefined);
    await expectReceived(rx);
    expect((await connected).stats.transport.output).toMatchObject({ packets_lost: expect.any(Number), packets_retransmitted: expect.any(Number), send_rate_kbps: expect.any(Number) });
    await remove('srt-call1');
  });

  it('into a listener started after it: it keeps retrying, reporting the failure, then sends', async () => {
    const port = await freeUdpPort();
    await create(body('srt-call2', 'h264', `srt://127.0.0.1:${port}`));
    // Nobody listens: the caller's failure is the pipeline's error and health reason, with what to check.
    const failing = await until('srt-call2', (v) => v.health === 'failing' && Boolean(v.last_error));
    const context = `SRT output (caller to 127.0.0.1:${port}; the listener must be there, with the same passphrase, key length and stream id)`;
    expect(failing.health_reason).toContain(context);
    expect(failing.last_error).toContain(context);
    const rx = await listener(port, tsTail('h264', 15));
    await expectReceived(rx);
    expect((await until('srt-call2', (v) => v.state === 'playing')).state).toBe('playing');
    await remove('srt-call2');
  });
});

describe('a passphrase mismatch', () => {
  it('a caller output refused by its listener: the operator reads that the passphrase must match', async () => {
    const port = await freeUdpPort();
    const rx = await listener(port, 'fakesink', '&passphrase=another-one-entirely');
    try {
      await create(body('srt-badpass', 'h264', `srt://127.0.0.1:${port}?passphrase=${PASSPHRASE}`));
      const view = await until('srt-badpass', (v) => v.health === 'failing' && /passphrase/.test(v.health_reason ?? ''));
      expect(view.health_reason).toMatch(/^SRT output \(caller to 127\.0\.0\.1:\d+; the listener must be there, with the same passphrase, key length and stream id\): /);
      await remove('srt-badpass');
    } finally {
      rx.child.kill('SIGKILL');
    }
  });

  it('an SRT source calling with the wrong passphrase: the start fails saying "Incorrect passphrase", naming the source', async () => {
    const origin = await freeUdpPort();
    await create(body('srt-locked', 'h264', `srt://0.0.0.0:${origin}?passphrase=${PASSPHRASE}`));
    const out = await freeUdpPort();
    const r = await svc.api('POST', '/svc/pipeline', {
      ...body('srt-wrongkey', 'h264', `udp://127.0.0.1:${out}`), source: { uri: `srt://127.0.0.1:${origin}?passphrase=not-the-right-one` },
    });
    const said = `SRT source (caller to 127.0.0.1:${origin}): Failed to authenticate: Incorrect passphrase`;
    expect(r.status, r.text).toBe(504);
    expect(r.body.message).toContain(said);
    const view = (await svc.api('GET', '/svc/pipeline/srt-wrongkey')).body;
    expect(view.health).toBe('failing');
    expect(view.health_reason).toContain(said);
    await remove('srt-wrongkey');
    await remove('srt-locked');
  });
});

describe('an SRT source from another encoderd pipeline\'s SRT listener output', () => {
  let origin: number;
  beforeAll(async () => {
    origin = await freeUdpPort();
    await create(body('srt-origin', 'h264', `srt://0.0.0.0:${origin}?latency=80`));
  });
  afterAll(async () => remove('srt-origin'));

  it('re-encoded into UDP MPEG-TS, decoded by a udpsrc receiver; the source\'s SRT figures in stats.transport', async () => {
    const out = await freeUdpPort();
    const rx = receive(`udpsrc port=${out} caps=video/mpegts,systemstream=true ! ${tsTail('h264', 15)}`);
    await create({ ...body('srt-reenc', 'h264', `udp://127.0.0.1:${out}`), source: { uri: `srt://127.0.0.1:${origin}?latency=80` } });
    await expectReceived(rx);
    const view = await until('srt-reenc', (v) => v.stats?.transport?.source?.packets_received > 0);
    expect(view.stats.transport.source).toMatchObject({ rtt_ms: expect.any(Number), packets_lost: expect.any(Number), latency_ms: 80 });
    expect(view.stats.source.frames).toBeGreaterThan(0);
    await remove('srt-reenc');
  });

  it('passed through (no encoder runs) into an SRT listener output, decoded by gst-launch srtsrc', async () => {
    const out = await freeUdpPort();
    await create({ id: 'srt-pass', mode: 'simple', source: { uri: `srt://127.0.0.1:${origin}` }, output: { uri: `srt://:${out}` } });
    await expectReceived(receive(`srtsrc uri=srt://127.0.0.1:${out} ! ${tsTail('h264', 15)}`));
    expect(await loadsEncoder('srt-pass')).toBe(false);
    expect(await loadsEncoder('srt-origin')).toBe(true);
    await remove('srt-pass');
  });
});

describe('refusals', () => {
  const refused = async (b: object, status: number, text: string) => {
    const r = await svc.api('POST', '/svc/pipeline', b);
    expect(r.status, r.text).toBe(status);
    expect(r.text).toContain(text);
    return r;
  };

  it('a bad mode, a 9-character passphrase, an unknown parameter, AV1 and audio: 400 naming what is wrong', async () => {
    await refused(body('srt-x', 'h264', 'srt://127.0.0.1:9000?mode=push'), 400, 'output.uri: mode must be caller, listener or rendezvous');
    await refused(body('srt-x', 'h264', 'srt://0.0.0.0:9000?passphrase=123456789'), 400, 'output.uri: passphrase must be 10 to 79 characters');
    await refused(body('srt-x', 'h264', 'srt://0.0.0.0:9000?bitrate=1'), 400, 'output.uri has an unknown SRT parameter \\"bitrate\\"');
    await refused(body('srt-x', 'av1', 'srt://0.0.0.0:9000'), 400, 'output.uri: SRT carries MPEG-TS, which cannot carry av1');
    await refused(body('srt-x', 'h264', 'srt://0.0.0.0:9000', { audio: { source: 'test' } }), 400, 'audio cannot be carried over SRT');
    await refused({ ...body('srt-x', 'h264', 'udp://127.0.0.1:9000'), source: { uri: 'srt://:9000?mode=rendezvous' } }, 400, 'source.uri: a rendezvous needs the address of its peer');
  });

  it('a listener on the port of a local RTSP output or a listening TCP output: 409 naming the holder', async () => {
    const port = await freePort();
    await create(body('rtsp-holder', 'h264', `rtsp://0.0.0.0:${port}/live`));
    await refused(body('srt-clash', 'h264', `srt://0.0.0.0:${port}`), 409, `port ${port} (SRT listener) is in use by pipeline \\"rtsp-holder\\"`);
    await remove('rtsp-holder');
    const tcp = await freePort();
    await create(body('tcp-holder', 'h264', `tcp://0.0.0.0:${tcp}`));
    await refused({ ...body('srt-clash', 'h264', 'udp://127.0.0.1:9000'), source: { uri: `srt://:${tcp}` } }, 409, `port ${tcp} (SRT listener) is in use by pipeline \\"tcp-holder\\"`);
    await remove('tcp-holder');
  });
});

describe('the passphrase is a secret', () => {
  it('every answer shows it as ***; POST /store seals it: the data dir never holds it', async () => {
    const port = await freeUdpPort();
    const uri = `srt://0.0.0.0:${port}?passphrase=${PASSPHRASE}&pbkeylen=32`;
    const created = await create(body('srt-secret', 'h264', uri));
    expect(created.output.uri).toBe(`srt://0.0.0.0:${port}?passphrase=***&pbkeylen=32`);
    const stored = await svc.api('POST', '/svc/pipeline/srt-secret/store', { auto_start: false });
    expect(stored.status, stored.text).toBe(201);
    for (const r of [stored, await svc.api('GET', '/svc/pipeline/srt-secret'), await svc.api('GET', '/svc/pipeline')]) {
      expect(r.text.includes(PASSPHRASE), 'a response carries the passphrase').toBe(false);
    }
    // The stream is encrypted under it: a caller with the passphrase decodes.
    await expectReceived(receive(`srtsrc uri=srt://127.0.0.1:${port}?passphrase=${PASSPHRASE}&pbkeylen=32 ! ${tsTail('h264', 10)}`));
    const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
    for (const f of files(svc.dataDir)) expect(readFileSync(f, 'latin1').includes(PASSPHRASE), f).toBe(false);
    await svc.api('DELETE', '/svc/pipeline/srt-secret/store');
    await remove('srt-secret');
  });

  it('no log line holds it, the engine hosts\' included', () => {
    expect(logs).toContain('srt-badpass');
    expect(logs.includes(PASSPHRASE)).toBe(false);
  });
});
