// The local RTSP server through the real service: clients sharing one running pipeline, on-demand states, a
// re-stream (one pipeline's RTSP output is another's RTSP source), passthrough of an RTSP source into .mkv, and the port
// shared with listening TCP outputs. Receivers are gst-launch-1.0 rtspsrc pipelines.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, sleep, startService, waitFor, type RunningService } from '../helpers/service';
import { ffmpegErrors } from './ffmpeg-judge';
import { body, expectReceived, probe, receive, rtpTail } from './receivers';

let svc: RunningService;
let dir: string;

beforeAll(async () => {
  svc = await startService();
  dir = mkdtempSync(join(tmpdir(), 'encoderd-rtsp-'));
});

afterAll(async () => {
  await svc?.stop();
});

async function remove(id: string): Promise<void> {
  await svc.api('PUT', `/svc/pipeline/${id}/stop`);
  await svc.api('DELETE', `/svc/pipeline/${id}`);
}

/** ffmpeg's line for a refused RTSP request ("method DESCRIBE failed: 503 Service Unavailable", "Server returned …"); a
 * bare /503/ also matched the frame checksums ffmpeg's showinfo prints. */
const REFUSED = /method \w+ failed: \d{3}|Server returned/;
const client = (port: number, path: string, tail: string) => receive(`rtspsrc location=rtsp://127.0.0.1:${port}${path} latency=100 ! ${tail}`);

describe('always running', () => {
  it('two clients at once share the pipeline; the later one decodes from its join (keyframe on join)', async () => {
    const port = await freePort();
    const r = await svc.api('POST', '/svc/pipeline', body('two', 'h264', `rtsp://0.0.0.0:${port}/live`));
    expect(r.status, r.text).toBe(201);
    expect(r.body.state).toBe('playing');
    expect(r.body.started_by).toBe('api');
    const first = client(port, '/live', rtpTail('h264', 45));
    await sleep(1000);
    const second = client(port, '/live', rtpTail('h264', 10));
    await Promise.all([expectReceived(first), expectReceived(second)]);
    // Both clients gone, the pipeline still runs: a third client is served at once.
    expect((await svc.api('GET', '/svc/pipeline/two')).body.state).toBe('playing');
    await expectReceived(client(port, '/live', rtpTail('h264', 5)));
    await remove('two');
  });

  it('a viewer that sets up only the video track leaves the media whole for one that takes every track', async () => {
    // gst-rtsp-server unblocks every stream at PLAY, and the KLV track nobody set up came back not-linked: the shared
    // media failed and refused every later client with 503 (docs/dataplane.md, "Receiver matrix").
    const port = await freePort();
    const r = await svc.api('POST', '/svc/pipeline', { ...body('partial', 'h264', `rtsp://0.0.0.0:${port}/p`), geolocation: { latitude: 51.5, longitude: -0.12 } });
    expect(r.status, r.text).toBe(201);
    const url = `rtsp://127.0.0.1:${port}/p`;
    const videoOnly = ffmpegErrors(['-rtsp_transport', 'udp', '-allowed_media_types', 'video', '-i', url], 60);
    await waitFor(async () => (await svc.api('GET', '/svc/pipeline/partial/stats')).body.stats?.rtsp_clients === 1, 10000, 100);
    const everyTrack = await ffmpegErrors(['-rtsp_transport', 'tcp', '-i', url], 30);
    const first = await videoOnly;
    for (const v of [first, everyTrack]) {
      expect(v.log).not.toMatch(REFUSED);
      expect(v.decoded).toBeGreaterThan(20);
      // ffmpeg's RTSP demuxer re-bases timestamps at the first RTCP sender report, and under load that step can go
      // backwards (docs/dataplane.md, "Receiver matrix", open item 1): its muxer's complaint is not damage.
      expect(v.errors.filter((l) => !/non monotonically increasing dts/.test(l))).toEqual([]);
    }
    // The viewer that asked for every track was given the KLV track too (ffmpeg lists it as data it cannot name).
    expect(everyTrack.log).toMatch(/Stream #0:1: Data/);
    await remove('partial');
  });

  it('viewers one after the other each get the stream: the next arrives as the last one\'s media is torn down', async () => {
    // Each viewer is the media's only one: its TEARDOWN unprepares the shared media, and the next viewer's DESCRIBE
    // follows at once (ffmpeg's start-up apart). gst-rtsp-server 1.22 hands a cached media being unprepared to a new
    // client, which it then refuses (503) — possible only when that teardown runs on another thread than the client's
    // (docs/dataplane.md, "Receiver matrix", open item 3). KLV and audio: the matrix's shape, three tracks.
    const port = await freePort();
    const r = await svc.api('POST', '/svc/pipeline', {
      ...body('serial', 'h264', `rtsp://127.0.0.1:${port}/s`),
      geolocation: { latitude: 51.5, longitude: -0.12 }, audio: { source: 'test', codec2_mode: 2400 },
    });
    expect(r.status, r.text).toBe(201);
    const url = `rtsp://127.0.0.1:${port}/s`;
    for (let i = 0; i < 8; i++) {
      const transport = i % 2 ? ['-rtsp_transport', 'udp', '-allowed_media_types', 'video'] : ['-rtsp_transport', 'tcp'];
      const v = await ffmpegErrors([...transport, '-i', url, '-map', '0:v:0'], 3);
      expect(v.log, `viewer ${i}`).not.toMatch(REFUSED);
      expect(v.decoded, `viewer ${i}: ${v.log.slice(-800)}`).toBeGreaterThanOrEqual(3);
    }
    await remove('serial');
  });

  it('a listening TCP output on the same port conflicts (409 names the port and the holder)', async () => {
    const port = await freePort();
    expect((await svc.api('POST', '/svc/pipeline', body('holder', 'h264', `rtsp://0.0.0.0:${port}/a`))).status).toBe(201);
    const r = await svc.api('POST', '/svc/pipeline', body('taker', 'h264', `tcp://0.0.0.0:${port}`));
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('PIPELINE_CONFLICT');
    expect(r.body.message).toContain(`TCP port ${port}`);
    expect(r.body.message).toContain('"holder"');
    await remove('holder');
  });
});

describe('on demand', () => {
  it('stays ready until a client connects, plays (started_by on_demand) while one watches, and is ready again after', async () => {
    const port = await freePort();
    const r = await svc.api('POST', '/svc/pipeline', body('od', 'av1', `rtsp://0.0.0.0:${port}/od`, { on_demand: true }));
    expect(r.status, r.text).toBe(201);
    expect(r.body.state).toBe('ready');
    expect(r.body.on_demand).toBe(true);
    await sleep(500);
    expect((await svc.api('GET', '/svc/pipeline/od')).body.state).toBe('ready');

    const watcher = client(port, '/od', rtpTail('av1', 60));
    const playing = await waitFor(async () => {
      const v = (await svc.api('GET', '/svc/pipeline/od')).body;
      return v.state === 'playing' ? v : null;
    }, 15000);
    expect(playing.started_by).toBe('on_demand');
    await expectReceived(watcher);
    await waitFor(async () => (await svc.api('GET', '/svc/pipeline/od')).body.state === 'ready', 20000);

    // And again for the next client.
    await expectReceived(client(port, '/od', rtpTail('av1', 5)));
    await svc.api('DELETE', '/svc/pipeline/od');
  });

  it('is refused with any other output', async () => {
    const r = await svc.api('POST', '/svc/pipeline', body('od-udp', 'h264', 'udp://127.0.0.1:5004', { on_demand: true }));
    expect(r.status).toBe(400);
    expect(r.body.details.errors).toContain('on_demand is allowed only with a local RTSP output');
  });
});

describe('RTSP source', () => {
  it('re-streams: one pipeline\'s RTSP output is another\'s source, re-encoded to H.265 and served again', async () => {
    const [pa, pb] = [await freePort(), await freePort()];
    expect((await svc.api('POST', '/svc/pipeline', body('origin', 'h264', `rtsp://0.0.0.0:${pa}/a`))).status).toBe(201);
    const relay = {
      ...body('relay', 'h265', `rtsp://0.0.0.0:${pb}/b`),
      source: { uri: `rtsp://127.0.0.1:${pa}/a`, latency_ms: 100 },
    };
    const r = await svc.api('POST', '/svc/pipeline', relay);
    expect(r.status, r.text).toBe(201);
    await expectReceived(client(pb, '/b', rtpTail('h265', 15)));
    await remove('relay');
    await remove('origin');
  });

  // Passthrough into the other outputs (TS, MP4, UDP, TCP, a local RTSP server): test/media/passthrough.test.ts.
  it('passes the stream through without encoding into a Matroska recording', async () => {
    const pa = await freePort();
    expect((await svc.api('POST', '/svc/pipeline', body('origin2', 'h264', `rtsp://0.0.0.0:${pa}/a`))).status).toBe(201);
    const path = join(dir, 'relay.mkv');
    const r = await svc.api('POST', '/svc/pipeline', { id: 'copy', mode: 'simple', source: { uri: `rtsp://127.0.0.1:${pa}/a` }, output: { uri: path } });
    expect(r.status, r.text).toBe(201);
    await sleep(2500);
    await remove('copy');
    const p = await probe(path);
    expect(p.codec).toBe('h264');
    expect([p.width, p.height]).toEqual([320, 240]);
    await remove('origin2');
  });
});
