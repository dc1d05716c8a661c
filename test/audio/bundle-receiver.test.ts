// The AV1 + Codec2 UDP bundle's receiver recipe (docs/audio.md, "Receiving the one-port bundle") works every time it
// is started on a running stream (issue 14). Both tracks share one port, split by payload type with rtpptdemux. With
// the sinks' default preroll the old recipe hung about two starts in three: the audio sink prerolled and waited for
// the video sink, which waited for a keyframe (up to 2 s away) that never came, because the audio queue filled and
// blocked the one thread that reads the socket. The recipe's sinks are async=false. Five starts in a row, each
// must decode video frames and Codec2 audio, then end cleanly at EOS.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startService, waitFor, type RunningService } from '../helpers/service';
import { GST_ENV } from '../media/receivers';

let svc: RunningService;
let dir: string;
let sdp: string;

const FRAME_BYTES = 320 * 240 * 1.5;
const STARTS = 5;

beforeAll(async () => {
  svc = await startService();
  dir = mkdtempSync(join(tmpdir(), 'bundle-receiver-'));
  const port = await freePort();
  const r = await svc.api('POST', '/svc/pipeline', {
    id: 'bundle', mode: 'simple', source: { uri: 'test://ball' },
    encoding: { codec: 'av1', bitrate: 300, width: 320, height: 240, fps: 15, quality: 1 },
    output: { uri: `udp://127.0.0.1:${port}` }, audio: { source: 'test', codec2_mode: 2400 },
  });
  expect(r.status, r.text).toBe(201);
  sdp = (await svc.api('GET', '/svc/pipeline/bundle/sdp')).text;
}, 60000);

afterAll(async () => {
  await svc?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Track { media: string; pt: string; caps: string }

/** Every m= line of the SDP as RTP caps (fmtp parameters as strings, as GStreamer's SDP reader gives them). */
function tracks(text: string): Track[] {
  return text.split(/^m=/m).slice(1).map((block) => {
    const [, media, pt] = /^(\w+) \d+ RTP\/AVP (\d+)/.exec(block)!;
    const [, enc, rate] = new RegExp(`a=rtpmap:${pt} ([A-Za-z0-9-]+)/(\\d+)`).exec(block)!;
    const fmtp = new RegExp(`a=fmtp:${pt} (.*)\r`).exec(block)?.[1];
    const params = fmtp ? `,${fmtp.split(';').map((kv) => kv.trim().replace('=', '=(string)')).join(',')}` : '';
    return { media, pt, caps: `application/x-rtp,media=${media},clock-rate=${rate},encoding-name=${enc},payload=${pt}${params}` };
  });
}

/**
 * docs/audio.md's recipe, from the SDP: one udpsrc, rtpptdemux, a branch per payload type (any track beyond video
 * and audio, such as KLV, taken and dropped: an unlinked payload type stops the demuxer), every sink async=false.
 */
function recipe(address: string, port: number, video: string, audio: string): string {
  const all = tracks(sdp);
  const v = all.find((t) => t.media === 'video')!;
  const a = all.find((t) => t.media === 'audio')!;
  return [
    `udpsrc address=${address} port=${port} caps=${v.caps} ! rtpptdemux name=d`,
    `d.src_${v.pt} ! queue ! rtpjitterbuffer latency=200 ! rtpav1depay ! av1parse ! av1dec ! videoconvert ! video/x-raw,format=I420 ! filesink location=${video} async=false`,
    `d.src_${a.pt} ! queue ! capssetter join=false replace=true caps=${a.caps} ! rtpcodec2depay ! codec2dec ! filesink location=${audio} async=false`,
    ...all.filter((t) => t !== v && t !== a).map((t) => `d.src_${t.pt} ! queue ! fakesink async=false`),
  ].join(' ');
}

const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);

/** Peak absolute sample of 8 kHz S16 audio: the decoded Codec2 is not silence. */
function peak(file: string): number {
  const b = readFileSync(file);
  const s = new Int16Array(b.buffer, b.byteOffset, b.length >> 1);
  let m = 0;
  for (const x of s) m = Math.max(m, Math.abs(x));
  return m;
}

describe('the AV1 + Codec2 bundle receiver, started on a running stream', () => {
  it(`decodes video and audio on each of ${STARTS} starts in a row, and ends at EOS`, async () => {
    const port = Number(/^m=video (\d+)/m.exec(sdp)![1]);
    const address = /^c=IN IP4 (\S+)/m.exec(sdp)![1];
    for (let i = 0; i < STARTS; i++) {
      const video = join(dir, `video${i}.yuv`);
      const audio = join(dir, `audio${i}.s16`);
      const description = recipe(address, port, video, audio);
      const child = spawn('gst-launch-1.0', ['-e', ...description.split(' ')], { env: { ...process.env, ...GST_ENV } });
      let out = '';
      child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
      child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        // Ten frames (the keyframe is at most 2 s away) and a second of speech-rate audio (16 000 bytes).
        await waitFor(() => size(video) >= 10 * FRAME_BYTES && size(audio) >= 16000, 10000, 100)
          .catch(() => { throw new Error(`start ${i}: video ${size(video) / FRAME_BYTES} frames, audio ${size(audio)} bytes\n${description}\n${out}`); });
        child.kill('SIGINT');
        const code = await Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('no exit after EOS'), 5000))]);
        expect(code, `start ${i}: ${out}`).toBe(0);
        expect(out, `start ${i}`).toContain('EOS');
        expect(peak(audio), `start ${i}`).toBeGreaterThan(100);
      } finally {
        child.kill('SIGKILL');
      }
    }
  }, 90000);
});
