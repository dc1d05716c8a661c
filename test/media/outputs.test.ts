// Interop: every allowed codec × output combination, through the real service over HTTPS, received by standard
// receivers (gst-launch-1.0 udpsrc/tcpclientsrc/tcpserversrc/rtspsrc/sdpdemux pipelines, ffprobe for files).
// One service instance; the three codecs of each output run at once. Multicast stays on "lo".
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startService, waitFor, type RunningService } from '../helpers/service';
import { waitListening, waitUdpBound } from './matrix/judge';
import { body, CODECS, expectReceived, probe, receive, rtpTail, tsTail, type Codec } from './receivers';

const ALL: Codec[] = ['h264', 'h265', 'av1'];
const AV1_RTP = 'application/x-rtp,media=video,clock-rate=90000,encoding-name=AV1,payload=96';
let svc: RunningService;
let dir: string;

beforeAll(async () => {
  svc = await startService();
  dir = mkdtempSync(join(tmpdir(), 'encoderd-media-'));
});

afterAll(async () => {
  await svc?.stop();
});

async function create(b: ReturnType<typeof body>): Promise<void> {
  const r = await svc.api('POST', '/svc/pipeline', b);
  expect(r.status, r.text).toBe(201);
  expect(r.body.state).toBe('playing');
}

async function remove(id: string): Promise<void> {
  await svc.api('PUT', `/svc/pipeline/${id}/stop`);
  const r = await svc.api('DELETE', `/svc/pipeline/${id}`);
  expect(r.status, r.text).toBe(204);
}

function group(): string {
  return `239.255.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`;
}

describe('UDP', () => {
  it('unicast: H.264 and H.265 as MPEG-TS (no SDP), AV1 as RTP described by GET /sdp and split by payload type', async () => {
    await Promise.all(ALL.map(async (codec) => {
      const port = await freePort();
      const id = `udp-${codec}`;
      if (codec === 'av1') {
        await create(body(id, codec, `udp://127.0.0.1:${port}`));
        const sdp = await svc.api('GET', `/svc/pipeline/${id}/sdp`);
        expect(sdp.status).toBe(200);
        expect(sdp.headers['content-type']).toMatch(/^application\/sdp/);
        expect(sdp.text).toContain(`m=video ${port} RTP/AVP 96\r\n`);
        expect(sdp.text).toContain('a=rtpmap:96 AV1/90000\r\n');
        expect(sdp.text).toContain('c=IN IP4 127.0.0.1\r\n');
        // The bundle's KLV stream shares the port (m=application … SMPTE336M, docs/klv.md), which sdpdemux cannot read
        // (one socket per m= line): the receiver splits the port by payload type, as docs/dataplane.md says.
        const klvPt = /m=application \d+ RTP\/AVP (\d+)/.exec(sdp.text)?.[1];
        expect(klvPt).toBe('97');
        await expectReceived(receive(`udpsrc address=127.0.0.1 port=${port} caps=${AV1_RTP} ! rtpptdemux ignored-payload-types=<${klvPt}> ! rtpjitterbuffer latency=100 ! ${rtpTail(codec)}`));
      } else {
        const r = receive(`udpsrc port=${port} caps=video/mpegts,systemstream=true ! ${tsTail(codec)}`);
        await waitUdpBound(port, 10000);
        await create(body(id, codec, `udp://127.0.0.1:${port}`));
        await expectReceived(r);
        const sdp = await svc.api('GET', `/svc/pipeline/${id}/sdp`);
        expect(sdp.status).toBe(404);
        expect(sdp.body.code).toBe('NOT_FOUND');
      }
      await remove(id);
    }));
  });

  it('multicast on lo, by network_interface and inline iface@group: TS for H.264/H.265, RTP for AV1 (TTL in the SDP)', async () => {
    await Promise.all(ALL.map(async (codec, i) => {
      const port = await freePort();
      const g = group();
      const id = `mc-${codec}`;
      const uri = i % 2 === 0 ? `udp://${g}:${port}` : `udp://lo@${g}:${port}`;
      const extra = i % 2 === 0 ? { output: { uri, network_interface: 'lo' } } : {};
      const src = `udpsrc address=${g} port=${port} multicast-iface=lo auto-multicast=true`;
      const r = codec === 'av1'
        // The bundle's KLV stream (payload type 97) is dropped by payload type.
        ? receive(`${src} caps=${AV1_RTP} ! rtpptdemux ignored-payload-types=<97> ! rtpjitterbuffer latency=100 ! ${rtpTail(codec)}`)
        : receive(`${src} caps=video/mpegts,systemstream=true ! ${tsTail(codec)}`);
      await waitUdpBound(port, 10000);
      await create({ ...body(id, codec, uri), ...extra });
      await expectReceived(r);
      if (codec === 'av1') {
        const sdp = await svc.api('GET', `/svc/pipeline/${id}/sdp`);
        expect(sdp.text).toContain(`c=IN IP4 ${g}/1\r\n`);
      }
      await remove(id);
    }));
  });
});

describe('TCP', () => {
  it('listening (tcp://0.0.0.0:port): TS for H.264/H.265, RFC 4571 RTP for AV1; a client connecting late still decodes', async () => {
    await Promise.all(ALL.map(async (codec) => {
      const port = await freePort();
      const id = `tcpl-${codec}`;
      await create(body(id, codec, `tcp://0.0.0.0:${port}`));
      await waitListening(port, 10000);
      const src = `tcpclientsrc host=127.0.0.1 port=${port}`;
      await expectReceived(codec === 'av1'
        ? receive(`${src} ! application/x-rtp-stream,media=video,clock-rate=90000,encoding-name=AV1,payload=96 ! rtpstreamdepay ! rtpptdemux ignored-payload-types=<97> ! ${rtpTail(codec)}`)
        : receive(`${src} ! ${tsTail(codec)}`));
      if (codec === 'av1') {
        const sdp = await svc.api('GET', `/svc/pipeline/${id}/sdp`);
        expect(sdp.text).toContain(`m=video ${port} TCP/RTP/AVP 96\r\n`);
        expect(sdp.text).toContain('a=setup:passive\r\n');
      }
      await remove(id);
    }));
  });

  it('connecting (tcp://127.0.0.1:port) to a listening receiver', async () => {
    await Promise.all(ALL.map(async (codec) => {
      const port = await freePort();
      const id = `tcpc-${codec}`;
      const src = `tcpserversrc host=127.0.0.1 port=${port}`;
      const r = codec === 'av1'
        ? receive(`${src} ! application/x-rtp-stream,media=video,clock-rate=90000,encoding-name=AV1,payload=96 ! rtpstreamdepay ! rtpptdemux ignored-payload-types=<97> ! ${rtpTail(codec)}`)
        : receive(`${src} ! ${tsTail(codec)}`);
      await waitListening(port, 10000);
      await create(body(id, codec, `tcp://127.0.0.1:${port}`));
      await expectReceived(r);
      await remove(id);
    }));
  });
});

describe('local RTSP server', () => {
  it('serves each codec to rtspsrc; the SDP endpoint gives what the mount offers', async () => {
    await Promise.all(ALL.map(async (codec) => {
      const port = await freePort();
      const id = `rtsp-${codec}`;
      await create(body(id, codec, `rtsp://0.0.0.0:${port}/live`));
      await expectReceived(receive(`rtspsrc location=rtsp://127.0.0.1:${port}/live latency=100 ! ${rtpTail(codec)}`));
      const sdp = await svc.api('GET', `/svc/pipeline/${id}/sdp`);
      expect(sdp.status).toBe(200);
      expect(sdp.text).toContain(`a=rtpmap:96 ${codec === 'h264' ? 'H264' : codec === 'h265' ? 'H265' : 'AV1'}/90000\r\n`);
      await remove(id);
    }));
  });
});

describe('file', () => {
  const cases: Array<[Codec, string]> = [
    ['h264', 'ts'], ['h264', 'mkv'], ['h264', 'mp4'],
    ['h265', 'ts'], ['h265', 'mkv'], ['h265', 'mp4'],
    ['av1', 'mkv'], ['av1', 'mp4'],
  ];

  it('records every allowed codec × container; stop finalises a file ffprobe reads', async () => {
    await Promise.all(cases.map(async ([codec, ext]) => {
      const id = `file-${codec}-${ext}`;
      const path = join(dir, `${id}.${ext}`);
      await create(body(id, codec, path));
      // Two seconds of video (30 frames at 15 fps) into the file before the stop finalises it.
      await waitFor(async () => (await svc.api('GET', `/svc/pipeline/${id}/stats`)).body.stats?.output?.frames >= 30, 20000);
      await remove(id);
      const p = await probe(path);
      expect(p.codec, `${id}`).toBe(CODECS[codec].probe);
      expect([p.width, p.height]).toEqual([320, 240]);
    }));
  });

  it('refuses AV1 into MPEG-TS with a 400 naming the field', async () => {
    const r = await svc.api('POST', '/svc/pipeline', body('av1-ts', 'av1', join(dir, 'x.ts')));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('VALIDATION_ERROR');
    expect(r.body.details.errors.join(' ')).toMatch(/output\.uri.*\.ts.*av1/);
  });
});

describe('live bitrate', () => {
  it('PATCH bitrate on H.265 and AV1 (live parameters) answers 200 playing, and the stream still decodes after it', async () => {
    await Promise.all((['h265', 'av1'] as Codec[]).map(async (codec) => {
      const port = await freePort();
      const id = `live-${codec}`;
      await create(body(id, codec, `tcp://0.0.0.0:${port}`));
      const p = await svc.api('PATCH', `/svc/pipeline/${id}`, { encoding: { bitrate: 800 } });
      expect(p.status, p.text).toBe(200);
      expect(p.body.state).toBe('playing');
      expect(p.body.encoding.bitrate).toBe(800);
      const src = `tcpclientsrc host=127.0.0.1 port=${port}`;
      await expectReceived(codec === 'av1'
        ? receive(`${src} ! application/x-rtp-stream,media=video,clock-rate=90000,encoding-name=AV1,payload=96 ! rtpstreamdepay ! rtpptdemux ignored-payload-types=<97> ! ${rtpTail(codec)}`)
        : receive(`${src} ! ${tsTail(codec)}`));
      await remove(id);
    }));
  });
});
