// KLV in the AV1 RTP bundle (docs/klv.md): UDP and TCP outputs that carry AV1 as RTP add the geolocation as an RFC
// 6597 stream (its own payload type, m=application … SMPTE336M/90000 in the SDP). A plain gst-launch-1.0 receiver
// (the standalone encoderd plugin on GST_PLUGIN_PATH for rtpav1depay) splits the bundle by payload type, decodes the
// AV1 with av1dec and depayloads the KLV with rtpklvdepay: ST 0601 packets with the geolocation, video without error.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSt0601 } from '../../core/klv/st0601';
import { freePort, ROOT, startService, waitFor, type RunningService } from '../helpers/service';
import { waitListening } from '../media/matrix/judge';
import { expectPosition } from './receivers';

const GEO = { latitude: 64.146582, longitude: -21.942635, altitude: 12, heading: 45 };
const FRAME_BYTES = 320 * 240 * 1.5;
const GST_ENV = { GST_PLUGIN_PATH: join(ROOT, 'native/build/gst-plugins'), GST_DEBUG: '0' };

let svc: RunningService;
let dir: string;
beforeAll(async () => {
  svc = await startService();
  dir = mkdtempSync(join(tmpdir(), 'encoderd-klv-bundle-'));
});
afterAll(async () => {
  await svc?.stop();
});

/** The payload type and receiver caps of one m= line of the SDP. */
function capsOf(sdp: string, media: string): { pt: string; caps: string } {
  const block = sdp.split('m=').find((b) => b.startsWith(media))!;
  const pt = /RTP\/AVP (\d+)/.exec(block)![1];
  const [, enc, rate] = new RegExp(`a=rtpmap:${pt} ([A-Z0-9]+)/(\\d+)`).exec(block)!;
  return { pt, caps: `application/x-rtp,media=${media},clock-rate=${rate},encoding-name=${enc},payload=${pt}` };
}

/** A gst-launch-1.0 receiver run until it has `frames` frames and `klvPackets` KLV packets (or the time is up), then interrupted. */
async function receiveBundle(head: string, sdp: string, name: string) {
  const video = capsOf(sdp, 'video');
  const klv = capsOf(sdp, 'application');
  const yuv = join(dir, `${name}.yuv`);
  const klvDir = mkdtempSync(join(dir, `${name}-klv-`));
  // docs/audio.md's receiver recipe: every sink async=false. With prerolling sinks a receiver started on a running
  // bundle could wait in preroll for good (a sink of one payload type blocking the thread that reads the socket).
  const description = `${head} ! rtpptdemux name=d `
    + `d.src_${video.pt} ! queue ! rtpjitterbuffer latency=200 ! rtpav1depay ! av1parse ! av1dec ! videoconvert ! video/x-raw,format=I420 ! filesink location=${yuv} async=false `
    + `d.src_${klv.pt} ! queue ! capssetter join=false replace=true caps=${klv.caps} ! rtpklvdepay ! multifilesink location=${klvDir}/%05d.bin async=false`;
  const child = spawn('gst-launch-1.0', ['-e', ...description.replace('CAPS', video.caps).split(' ')], { env: { ...process.env, ...GST_ENV } });
  let output = '';
  child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    async collect(frames: number, klvPackets: number) {
      try {
        await waitFor(() => existsSync(yuv) && statSync(yuv).size >= frames * FRAME_BYTES && readdirSync(klvDir).length >= klvPackets, 20000);
      } finally {
        child.kill('SIGINT');
        // What was written is judged below; a receiver that does not end on its EOS is not this test's subject.
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        child.kill('SIGKILL');
      }
      return {
        output,
        frames: statSync(yuv).size / FRAME_BYTES,
        packets: readdirSync(klvDir).sort().map((f) => decodeSt0601(readFileSync(join(klvDir, f)))),
      };
    },
    stop: () => child.kill('SIGKILL'),
  };
}

/**
 * Packets stamped before the PATCH may arrive after it (a syncing sink sends KLV with the pipeline's latency, as it
 * sends the video): from the first with a position on, every one has the geolocation.
 */
function expectFromFirstPosition(packets: ReturnType<typeof decodeSt0601>[], output: string) {
  const first = packets.findIndex((d) => d.latitude !== undefined);
  expect(first, output).toBeGreaterThanOrEqual(0);
  expect(packets.length - first, output).toBeGreaterThanOrEqual(5);
  for (const d of packets.slice(first)) expectPosition(d, GEO);
  for (const d of packets) expect(d.checksumOk).toBe(true);
}

describe('KLV in the AV1 RTP bundle', () => {
  it('UDP: the SDP names the KLV stream; the receiver decodes the video and gets the geolocation', async () => {
    const port = await freePort();
    const id = 'klv-av1-udp';
    let r = await svc.api('POST', '/svc/pipeline', {
      id, mode: 'simple', source: { uri: 'test://ball' }, encoding: { codec: 'av1', bitrate: 300, width: 320, height: 240, fps: 15, quality: 1 },
      output: { uri: `udp://127.0.0.1:${port}` },
    });
    expect(r.status, r.text).toBe(201);
    try {
      r = await svc.api('PATCH', `/svc/pipeline/${id}`, { geolocation: GEO });
      expect(r.status, r.text).toBe(200);
      const sdp = (await svc.api('GET', `/svc/pipeline/${id}/sdp`)).text;
      expect(sdp).toContain(`m=video ${port} RTP/AVP 96\r\na=rtpmap:96 AV1/90000\r\n`);
      expect(sdp).toContain(`m=application ${port} RTP/AVP 97\r\na=rtpmap:97 SMPTE336M/90000\r\n`);
      const rx = await receiveBundle(`udpsrc address=127.0.0.1 port=${port} caps=CAPS`, sdp, 'udp');
      const got = await rx.collect(20, 10);
      expect(got.output).not.toMatch(/ERROR/);
      expect(got.frames, got.output).toBeGreaterThanOrEqual(20);
      expectFromFirstPosition(got.packets, got.output);
    } finally {
      await svc.api('PUT', `/svc/pipeline/${id}/stop`);
      await svc.api('DELETE', `/svc/pipeline/${id}`);
    }
  }, 60_000);

  it('TCP (connecting to a listening receiver, RFC 4571): the same bundle with its KLV stream', async () => {
    const port = await freePort();
    const id = 'klv-av1-tcp';
    // The receiver listens before the pipeline connects to it: its payload types are those the SDP then names.
    const sdpOf = async () => (await svc.api('GET', `/svc/pipeline/${id}/sdp`)).text;
    const rx = await receiveBundle(
      `tcpserversrc host=127.0.0.1 port=${port} ! application/x-rtp-stream ! rtpstreamdepay ! capsfilter caps=CAPS`,
      `m=video ${port} TCP/RTP/AVP 96\r\na=rtpmap:96 AV1/90000\r\nm=application ${port} TCP/RTP/AVP 97\r\na=rtpmap:97 SMPTE336M/90000\r\n`.replace(/TCP\/RTP/g, 'RTP'),
      'tcp',
    );
    try {
      // A pipeline that connects before gst-launch listens fails its start ("Could not open resource for reading"), and
      // a create with a spare engine host starts sooner than gst-launch-1.0 listens.
      await waitListening(port, 10000);
      let r = await svc.api('POST', '/svc/pipeline', {
        id, mode: 'simple', source: { uri: 'test://ball' }, encoding: { codec: 'av1', bitrate: 300, width: 320, height: 240, fps: 15, quality: 1 },
        output: { uri: `tcp://127.0.0.1:${port}` },
      });
      expect(r.status, r.text).toBe(201);
      r = await svc.api('PATCH', `/svc/pipeline/${id}`, { geolocation: GEO });
      expect(r.status, r.text).toBe(200);
      const sdp = await sdpOf();
      expect(sdp).toContain(`m=video ${port} TCP/RTP/AVP 96\r\na=rtpmap:96 AV1/90000\r\n`);
      expect(sdp).toContain(`m=application ${port} TCP/RTP/AVP 97\r\na=rtpmap:97 SMPTE336M/90000\r\n`);
      const got = await rx.collect(20, 10);
      expect(got.output).not.toMatch(/ERROR/);
      expect(got.frames, got.output).toBeGreaterThanOrEqual(20);
      expectFromFirstPosition(got.packets, got.output);
    } finally {
      rx.stop();
      await svc.api('PUT', `/svc/pipeline/${id}/stop`);
      await svc.api('DELETE', `/svc/pipeline/${id}`);
    }
  }, 60_000);
});
