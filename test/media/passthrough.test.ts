// Passthrough (no `encoding`) into every output, through the real service over HTTPS: the engine host probes the
// source's codec from its first sample, and the pipeline is composed with it (docs/dataplane.md, passthrough).
// Sources are other encoderd pipelines (an H.264 or H.265 RTSP output), a gst-launch MPEG-TS sender on UDP and
// media files; receivers are a Node UDP socket, gst-launch rtspsrc/udpsrc/tcpclientsrc pipelines and ffprobe.
// "Not re-encoded" is observed in the relay's engine host: it never loads libx264/libx265 (the origin's does).
import { spawn } from 'node:child_process';
import { readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, hostPidsByPipeline, run, sleep, startService, udpReceiver, waitFor, type RunningService } from '../helpers/service';
import { body, expectReceived, FRAME, GST_ENV, probe, receive, rtpTail, tsTail } from './receivers';

// Longer than the default (10 s), for a probe of a just-started origin on a loaded machine: 6 s ran out once in a
// full suite, and 12 s once more (2026-11-26, the Node engine host, a relay of an RTSP origin created just before
// it). The silent-source test waits it out for its 504.
const START_TIMEOUT_MS = 20000;

let svc: RunningService;
let dir: string;

beforeAll(async () => {
  svc = await startService({ args: ['--start-timeout-ms', String(START_TIMEOUT_MS)] });
  dir = mkdtempSync(join(tmpdir(), 'encoderd-passthrough-'));
});

afterAll(async () => {
  await svc?.stop();
});

async function remove(id: string): Promise<void> {
  await svc.api('PUT', `/svc/pipeline/${id}/stop`);
  const r = await svc.api('DELETE', `/svc/pipeline/${id}`);
  expect(r.status, r.text).toBe(204);
}

/** A passthrough pipeline: a source and an output, no encoding. */
function relay(id: string, sourceUri: string, outputUri: string) {
  return { id, mode: 'simple', source: { uri: sourceUri, latency_ms: 100 }, output: { uri: outputUri } };
}

async function create(b: object): Promise<void> {
  const r = await svc.api('POST', '/svc/pipeline', b);
  expect(r.status, r.text).toBe(201);
  expect(r.body.state).toBe('playing');
  expect(r.body.encoding).toBeUndefined();
}

/** Whether the engine host of pipeline id has an encoder library mapped (GStreamer loads a plugin's .so on first use). */
async function loadsEncoder(id: string): Promise<boolean> {
  const pid = (await hostPidsByPipeline(svc.child.pid!)).get(id);
  expect(pid, `engine host of ${id}`).toBeDefined();
  return /lib(x264|x265|aom)\.so|libgst(x264|x265|aom)\.so/.test(readFileSync(`/proc/${pid}/maps`, 'utf8'));
}

describe('an H.264 RTSP source, not re-encoded', () => {
  let src: string;
  beforeAll(async () => {
    const port = await freePort();
    const r = await svc.api('POST', '/svc/pipeline', body('origin264', 'h264', `rtsp://0.0.0.0:${port}/o`));
    expect(r.status, r.text).toBe(201);
    src = `rtsp://127.0.0.1:${port}/o`;
  });
  afterAll(async () => remove('origin264'));

  it('into UDP as MPEG-TS: 7×188-byte datagrams of the source\'s H.264, same size, and no encoder in the relay', async () => {
    const port = await freePort();
    const rx = await udpReceiver(port);
    try {
      await create(relay('pt-udp', src, `udp://127.0.0.1:${port}`));
      await sleep(3000);
      expect(await loadsEncoder('pt-udp')).toBe(false);
      expect(await loadsEncoder('origin264')).toBe(true); // the control: the origin's host encodes
      await remove('pt-udp');
    } finally {
      rx.close();
    }
    expect(rx.packets.length).toBeGreaterThan(10);
    expect(rx.packets.every((p) => p.data.length === 7 * 188 && p.data[0] === 0x47)).toBe(true);
    const file = join(dir, 'udp.ts');
    writeFileSync(file, Buffer.concat(rx.packets.map((p) => p.data)));
    const p = await probe(file);
    expect(p.codec).toBe('h264');
    expect([p.width, p.height]).toEqual([FRAME.width, FRAME.height]);
  });

  it('into a local RTSP output read by rtspsrc', async () => {
    const port = await freePort();
    await create(relay('pt-rtsp', src, `rtsp://0.0.0.0:${port}/r`));
    const sdp = await svc.api('GET', '/svc/pipeline/pt-rtsp/sdp');
    expect(sdp.text).toContain('a=rtpmap:96 H264/90000');
    await expectReceived(receive(`rtspsrc location=rtsp://127.0.0.1:${port}/r latency=100 ! ${rtpTail('h264', 15)}`));
    expect(await loadsEncoder('pt-rtsp')).toBe(false);
    await remove('pt-rtsp');
  });

  it('into an on-demand local RTSP output: ready until a client comes, then the probed stream is payloaded', async () => {
    const port = await freePort();
    const r = await svc.api('POST', '/svc/pipeline', { ...relay('pt-od', src, `rtsp://0.0.0.0:${port}/od`), on_demand: true });
    expect(r.status, r.text).toBe(201);
    expect(r.body.state).toBe('ready');
    await expectReceived(receive(`rtspsrc location=rtsp://127.0.0.1:${port}/od latency=100 ! ${rtpTail('h264', 10)}`));
    await svc.api('DELETE', '/svc/pipeline/pt-od');
  });

  it('into .ts and .mp4 recordings (and .mkv still)', async () => {
    const paths = ['ts', 'mp4', 'mkv'].map((ext) => join(dir, `rec.${ext}`));
    await Promise.all(paths.map((path, i) => create(relay(`pt-file${i}`, src, path))));
    await sleep(3000);
    await Promise.all(paths.map((_, i) => remove(`pt-file${i}`)));
    for (const path of paths) {
      const p = await probe(path);
      expect(p.codec, path).toBe('h264');
      expect([p.width, p.height], path).toEqual([FRAME.width, FRAME.height]);
    }
  });

  it('into a listening TCP output: a client reads MPEG-TS', async () => {
    const port = await freePort();
    await create(relay('pt-tcp', src, `tcp://0.0.0.0:${port}`));
    await expectReceived(receive(`tcpclientsrc host=127.0.0.1 port=${port} ! ${tsTail('h264', 15)}`));
    await remove('pt-tcp');
  });
});

describe('other codecs and sources', () => {
  it('an H.265 RTSP source into UDP MPEG-TS, decoded by a udpsrc receiver', async () => {
    const port = await freePort();
    const r = await svc.api('POST', '/svc/pipeline', body('origin265', 'h265', `rtsp://0.0.0.0:${port}/o`));
    expect(r.status, r.text).toBe(201);
    const out = await freePort();
    const rx = receive(`udpsrc port=${out} caps=video/mpegts,systemstream=true ! ${tsTail('h265', 15)}`);
    await sleep(300);
    await create(relay('pt-265', `rtsp://127.0.0.1:${port}/o`, `udp://127.0.0.1:${out}`));
    await expectReceived(rx);
    expect(await loadsEncoder('pt-265')).toBe(false);
    await remove('pt-265');
    await remove('origin265');
  });

  it('an AV1 file into .ts is refused at create, naming the codec and the output (400, nothing kept); into UDP it goes as RTP', async () => {
    const clip = join(dir, 'av1.mkv');
    const made = await run('gst-launch-1.0', ['-q', 'videotestsrc', 'num-buffers=45', 'pattern=ball', '!',
      `video/x-raw,format=I420,width=${FRAME.width},height=${FRAME.height},framerate=${FRAME.fps}/1`, '!',
      'av1enc', 'usage-profile=realtime', 'end-usage=cbr', 'cpu-used=10', 'min-quantizer=0', 'max-quantizer=63', '!',
      'av1parse', '!', 'matroskamux', '!', 'filesink', `location=${clip}`]);
    expect(made.code, made.stderr).toBe(0);

    const r = await svc.api('POST', '/svc/pipeline', relay('pt-av1ts', `file://${clip}`, join(dir, 'av1.ts')));
    // The client's mistake, known once the source is opened (test/api/passthrough-refusal.test.ts has PUT and play).
    expect(r.status, r.text).toBe(400);
    expect(r.body.code).toBe('VALIDATION_ERROR');
    expect(r.body.details.errors).toEqual([`output.uri: a .ts file cannot carry av1 (the source's video is av1, passed through: set encoding to encode it)`]);
    expect((await svc.api('GET', '/svc/pipeline/pt-av1ts')).status).toBe(404);

    const port = await freePort();
    await create(relay('pt-av1udp', `file://${clip}`, `udp://127.0.0.1:${port}`));
    const sdp = await svc.api('GET', '/svc/pipeline/pt-av1udp/sdp');
    expect(sdp.status).toBe(200);
    expect(sdp.text).toContain('a=rtpmap:96 AV1/90000');
    // The file plays once; the receiver joins now and decodes what is left of it. The bundle's KLV stream shares the
    // port (docs/klv.md), which sdpdemux cannot read: the receiver splits the port by payload type.
    const video = 'application/x-rtp,media=video,clock-rate=90000,encoding-name=AV1,payload=96';
    expect(sdp.text).toContain('a=rtpmap:97 SMPTE336M/90000');
    await expectReceived(receive(`udpsrc address=127.0.0.1 port=${port} caps=${video} ! rtpptdemux ignored-payload-types=<97> ! rtpjitterbuffer latency=100 ! ${rtpTail('av1', 5)}`));
    await svc.api('PUT', '/svc/pipeline/pt-av1udp/stop');
    await svc.api('DELETE', '/svc/pipeline/pt-av1udp');
  });

  it('a passed-through file plays once: the pipeline says ready when it ends, and the .mp4 holds every frame', async () => {
    // The file has no KLV, so the source's KLV tap (linked to the demuxer's KLV pad if one comes) never gets a
    // buffer or an EOS. Until taps stopped counting as sinks (native/src/gst-core.c), the pipeline never ended:
    // it said playing for good and a stop waited out its 5 s EOS timeout.
    const clip = join(dir, 'once.mkv');
    const made = await run('gst-launch-1.0', ['-q', 'videotestsrc', 'num-buffers=30', 'pattern=ball', '!',
      `video/x-raw,format=I420,width=${FRAME.width},height=${FRAME.height},framerate=${FRAME.fps}/1`, '!',
      'x264enc', 'speed-preset=ultrafast', `key-int-max=${FRAME.fps}`, '!', 'h264parse', '!', 'matroskamux', '!', 'filesink', `location=${clip}`]);
    expect(made.code, made.stderr).toBe(0);
    const out = join(dir, 'once.mp4');
    await create(relay('pt-once', `file://${clip}`, out));
    await waitFor(async () => (await svc.api('GET', '/svc/pipeline/pt-once')).body.state === 'ready', 20000);
    const view = (await svc.api('GET', '/svc/pipeline/pt-once')).body;
    expect(view.last_error).toBeNull();
    const frames = await run('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v', '-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', out]);
    expect(frames.stdout.trim()).toBe('30');
    const decoded = await run('ffmpeg', ['-v', 'error', '-i', out, '-f', 'null', '-']);
    expect(decoded.stderr.trim()).toBe('');
    expect((await svc.api('DELETE', '/svc/pipeline/pt-once')).status).toBe(204);
  });

  it('a UDP MPEG-TS source into an .mp4 recording', async () => {
    const srcPort = await freePort();
    const sender = spawn('gst-launch-1.0', ['-q', 'videotestsrc', 'is-live=true', 'pattern=ball', '!',
      `video/x-raw,width=${FRAME.width},height=${FRAME.height},framerate=${FRAME.fps}/1`, '!',
      'x264enc', 'tune=zerolatency', 'speed-preset=ultrafast', `key-int-max=${FRAME.fps}`, '!',
      'h264parse', 'config-interval=-1', '!', 'mpegtsmux', 'alignment=7', '!', 'udpsink', 'host=127.0.0.1', `port=${srcPort}`],
    { stdio: 'ignore', env: { ...process.env, ...GST_ENV } });
    try {
      const path = join(dir, 'from-udp.mp4');
      await create(relay('pt-udpsrc', `udp://127.0.0.1:${srcPort}`, path));
      await sleep(2500);
      await remove('pt-udpsrc');
      const p = await probe(path);
      expect(p.codec).toBe('h264');
      expect([p.width, p.height]).toEqual([FRAME.width, FRAME.height]);
      expect(p.duration).toBeGreaterThan(1);
    } finally {
      sender.kill('SIGKILL');
    }
  });

  it('after a source loss the codec is probed again: the origin comes back as H.265 and the relay carries H.265', async () => {
    const port = await freePort();
    const originBody = (codec: 'h264' | 'h265') => body('origin-x', codec, `rtsp://0.0.0.0:${port}/o`);
    expect((await svc.api('POST', '/svc/pipeline', originBody('h264'))).status).toBe(201);
    const out = await freePort();
    const first = receive(`udpsrc port=${out} caps=video/mpegts,systemstream=true ! ${tsTail('h264', 10)}`);
    await sleep(300);
    await create(relay('pt-loss', `rtsp://127.0.0.1:${port}/o`, `udp://127.0.0.1:${out}`));
    await expectReceived(first);

    // The origin goes away and comes back with another codec (stop, replace, play).
    expect((await svc.api('PUT', '/svc/pipeline/origin-x/stop')).status).toBe(200);
    await waitFor(async () => (await svc.api('GET', '/svc/pipeline/pt-loss')).body.state === 'ready', 20000);
    expect((await svc.api('PUT', '/svc/pipeline/origin-x', originBody('h265'))).status).toBe(200);
    const second = receive(`udpsrc port=${out} caps=video/mpegts,systemstream=true ! ${tsTail('h265', 10)}`, 40000);
    await sleep(300);
    expect((await svc.api('PUT', '/svc/pipeline/origin-x/play')).status).toBe(200);
    await expectReceived(second);
    const view = (await svc.api('GET', '/svc/pipeline/pt-loss')).body;
    expect(view.state).toBe('playing');
    expect(view.last_error).toBeNull();
    await remove('pt-loss');
    await remove('origin-x');
  });

  it('a silent source fails the start like any start: 504, the probe\'s reason in the message', async () => {
    const port = await freePort();
    const r = await svc.api('POST', '/svc/pipeline', relay('pt-silent', `udp://127.0.0.1:${port}`, join(dir, 'silent.ts')));
    expect(r.status, r.text).toBe(504);
    expect(r.body.code).toBe('PIPELINE_START_TIMEOUT');
    expect(r.body.message).toMatch(new RegExp(`^pipeline did not reach playing: the source sent no video within ${START_TIMEOUT_MS} ms`));
    await svc.api('DELETE', '/svc/pipeline/pt-silent');
  });
});
