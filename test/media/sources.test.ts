// Sources through the real service: a media file looped past its length, MPEG-TS over UDP multicast shared by two
// pipelines (one re-encodes, one passes through), and the V4L2 camera. No camera can exist on a test machine (no
// /dev/video*, no v4l2loopback), so the camera is checked by composition only: its description parses in the real
// addon's GStreamer and its claim is exclusive, within a pipeline and across pipelines.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import builtinCamera from '../../plugins/sources/v4l2';
import { builtinPlugins } from '../../plugins';
import { loadNative } from '../../core/engine/native';
import { ClaimTable } from '../../core/pipeline/claims';
import { composeSimple } from '../../core/compose';
import { PipelineValidator } from '../../core/pipeline/validate';
import { PluginRegistry } from '../../core/plugins/registry';
import { freePort, run, sleep, startService, type RunningService } from '../helpers/service';
import { openSse } from '../helpers/sse';
import { body, expectReceived, FRAME, probe, receive, rtpTail, tsTail } from './receivers';

let svc: RunningService;
let dir: string;

beforeAll(async () => {
  svc = await startService();
  dir = mkdtempSync(join(tmpdir(), 'encoderd-src-'));
});

afterAll(async () => {
  await svc?.stop();
});

async function remove(id: string): Promise<void> {
  await svc.api('PUT', `/svc/pipeline/${id}/stop`);
  await svc.api('DELETE', `/svc/pipeline/${id}`);
}

let clipMade: Promise<string> | undefined;
/** A 1 s H.264 Matroska clip, made once per file. */
function oneSecondClip(): Promise<string> {
  clipMade ??= (async () => {
    const clip = join(dir, 'clip.mkv');
    const made = await run('gst-launch-1.0', ['-q', '-e', 'videotestsrc', 'num-buffers=15', 'pattern=smpte', '!',
      `video/x-raw,width=320,height=240,framerate=${FRAME.fps}/1`, '!', 'x264enc', '!', 'h264parse', '!', 'matroskamux', '!', 'filesink', `location=${clip}`]);
    if (made.code !== 0) throw new Error(`could not make the clip: ${made.stderr}`);
    return clip;
  })();
  return clipMade;
}

describe('file source', () => {
  it('plays a 1 s file in a loop: a receiver decodes 3 s of it', async () => {
    const clip = await oneSecondClip();
    expect((await probe(clip)).duration).toBeLessThanOrEqual(1.1);

    const port = await freePort();
    const r = receive(`udpsrc port=${port} caps=video/mpegts,systemstream=true ! ${tsTail('h264', 3 * FRAME.fps)}`, 30000);
    await sleep(300);
    const created = await svc.api('POST', '/svc/pipeline', { ...body('loop', 'h264', `udp://127.0.0.1:${port}`), source: { uri: `file://${clip}` } });
    expect(created.status, created.text).toBe(201);
    const sse = await openSse(svc.port, '/svc/pipeline/loop/status/events');
    await expectReceived(r);
    // The file was read again (twice at least) without an error or a restart of the pipeline.
    sse.close();
    expect(sse.events.filter((e) => e.event === 'pipeline_error')).toEqual([]);
    expect(sse.events.filter((e) => e.event === 'pipeline_status' && e.data.state !== 'playing')).toEqual([]);
    expect((await svc.api('GET', '/svc/pipeline/loop')).body.state).toBe('playing');
    await remove('loop');
  });

  it('keeps looping under a local RTSP server: one client session spans the ends of the file', async () => {
    const clip = await oneSecondClip();
    const port = await freePort();
    const created = await svc.api('POST', '/svc/pipeline', { ...body('loop-rtsp', 'h264', `rtsp://0.0.0.0:${port}/f`), source: { uri: `file://${clip}` } });
    expect(created.status, created.text).toBe(201);
    const sse = await openSse(svc.port, '/svc/pipeline/loop-rtsp/status/events');
    await expectReceived(receive(`rtspsrc location=rtsp://127.0.0.1:${port}/f latency=100 ! ${rtpTail('h264', 3 * FRAME.fps)}`, 30000));
    sse.close();
    expect(sse.events.filter((e) => e.event === 'pipeline_error')).toEqual([]);
    await remove('loop-rtsp');
  });

  it('refuses a file that does not exist, naming source.uri', async () => {
    const r = await svc.api('POST', '/svc/pipeline', { ...body('nofile', 'h264', 'udp://127.0.0.1:5004'), source: { uri: 'file:///no/such/clip.mkv' } });
    expect(r.status).toBe(400);
    expect(r.body.details.errors).toContain('source.uri file /no/such/clip.mkv does not exist');
  });
});

describe('UDP source', () => {
  it('two pipelines share one multicast MPEG-TS source on lo: one re-encodes to H.265, one records it as it is', async () => {
    const [srcPort, outPort] = [await freePort(), await freePort()];
    const group = `239.254.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`;
    const sender = spawn('gst-launch-1.0', ['-q', 'videotestsrc', 'is-live=true', 'pattern=ball', '!',
      `video/x-raw,width=320,height=240,framerate=${FRAME.fps}/1`, '!', 'x264enc', 'tune=zerolatency', 'speed-preset=ultrafast', `key-int-max=${FRAME.fps}`, '!',
      'h264parse', 'config-interval=-1', '!', 'mpegtsmux', 'alignment=7', '!',
      'udpsink', `host=${group}`, `port=${srcPort}`, 'multicast-iface=lo', 'auto-multicast=true', 'ttl-mc=1'], { stdio: 'ignore' });
    try {
      const source = { uri: `udp://lo@${group}:${srcPort}` };
      const r = receive(`udpsrc port=${outPort} caps=video/mpegts,systemstream=true ! ${tsTail('h265', 15)}`);
      await sleep(300);
      const a = await svc.api('POST', '/svc/pipeline', { ...body('reenc', 'h265', `udp://127.0.0.1:${outPort}`), source });
      expect(a.status, a.text).toBe(201);
      const path = join(dir, 'copy.mkv');
      const b = await svc.api('POST', '/svc/pipeline', { id: 'copy', mode: 'simple', source, output: { uri: path } });
      expect(b.status, b.text).toBe(201);
      await expectReceived(r);
      await sleep(1500);
      await remove('copy');
      await remove('reenc');
      const p = await probe(path);
      expect(p.codec).toBe('h264');
      expect([p.width, p.height]).toEqual([320, 240]);
    } finally {
      sender.kill('SIGKILL');
    }
  });

  it('refuses an interface with a unicast address', async () => {
    const r = await svc.api('POST', '/svc/pipeline', { ...body('uif', 'h264', 'udp://127.0.0.1:5004'), source: { uri: 'udp://lo@127.0.0.1:5000' } });
    expect(r.status).toBe(400);
    expect(r.body.details.errors[0]).toMatch(/^source\.uri names an interface/);
  });
});

describe('V4L2 camera (composition only: no camera exists on a test machine)', () => {
  const registry = new PluginRegistry();
  for (const p of builtinPlugins) registry.register(p);
  const def = (id: string, device: string) => ({
    id, mode: 'simple' as const, on_demand: false,
    source: { uri: `file://${device}` },
    encoding: { codec: 'h264', bitrate: 500, width: 320, height: 240, fps: 15, quality: 5 },
    output: { uri: 'udp://127.0.0.1:5004' },
  });

  it('is picked for file:///dev/videoN (not the file source) and composes into a description GStreamer parses', () => {
    expect(registry.source('file:///dev/video0')?.name).toBe('v4l2');
    expect(registry.source('file:///tmp/clip.mkv')?.name).toBe('file');
    const composed = composeSimple(def('cam', '/dev/video0'), registry, { rtspLatencyMs: 200 });
    expect(composed.description).toMatch(/^mpegtsmux .* v4l2src name="src" device="\/dev\/video0" ! decodebin /);
    const native = loadNative();
    const p = new native.Pipeline(composed.description, () => undefined);
    expect(p.elements().some((e) => e.factory === 'v4l2src' && e.properties.device === '/dev/video0')).toBe(true);
    p.destroy();
  });

  it('needs encoding (raw video) and claims the device exclusively, across pipelines and within one', () => {
    const validator = new PipelineValidator(registry);
    expect(() => validator.definition({ id: 'raw', mode: 'simple', source: { uri: 'file:///dev/video0' }, output: { uri: 'udp://127.0.0.1:5004' } }))
      .toThrow(/encoding is required for this source/);
    const table = new ClaimTable();
    expect(table.take('a', validator.claims(def('a', '/dev/video0')))).toBeNull();
    const conflict = table.take('b', validator.claims({ ...def('b', '/dev/video0'), output: { uri: 'udp://127.0.0.1:5006' } }));
    expect(conflict?.claim.label).toBe('camera /dev/video0');
    expect(conflict?.holder).toBe('a');
    expect(table.take('b', validator.claims({ ...def('b', '/dev/video1'), output: { uri: 'udp://127.0.0.1:5006' } }))).toBeNull();
    const twice = builtinCamera.claims({ uri: 'file:///dev/video2' });
    expect(table.check('m', [...twice, ...twice])?.holder).toBe('m');
  });
});
