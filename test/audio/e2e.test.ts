// Codec2 audio on the real service over HTTPS: every spec audio message, an RTSP client receiving both tracks, and
// the AV1 + Codec2 UDP bundle received through the published SDP. The speech comes from espeak-ng, muxed with a
// short video into a Matroska file that the file:// source loops (audio.source stream): Codec2 is a speech
// vocoder, so tones are no fidelity test (dataplane-findings §2). No ALSA card exists here: `local` is checked by
// validation only (test/audio/chain.test.ts composes it).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, h264Body, run, sleep, startService, type RunningService } from '../helpers/service';
import { GST_ENV } from '../media/receivers';

let svc: RunningService;
let dir: string;
let speechFile: string;
let n = 0;
const nextId = () => `audio-${++n}`;

function rmsDb(file: string): number {
  const b = readFileSync(file);
  const s = new Int16Array(b.buffer, b.byteOffset, b.length >> 1);
  let acc = 0;
  for (const v of s) acc += v * v;
  return 10 * Math.log10(acc / Math.max(1, s.length) / 32768 ** 2);
}

/** Speech has pauses: the 20 ms frame energies vary a lot (a steady tone or hiss would not). */
function envelopeSpread(file: string): number {
  const b = readFileSync(file);
  const s = new Int16Array(b.buffer, b.byteOffset, b.length >> 1);
  const e: number[] = [];
  for (let i = 0; i + 160 <= s.length; i += 160) {
    let acc = 0;
    for (let j = i; j < i + 160; j++) acc += s[j] * s[j];
    e.push(Math.sqrt(acc / 160));
  }
  const mean = e.reduce((a, c) => a + c, 0) / e.length;
  return Math.sqrt(e.reduce((a, c) => a + (c - mean) ** 2, 0) / e.length) / mean;
}

/** gst-launch-1.0 -e for ms, then SIGINT (EOS), so the filesinks are complete. */
function receiveFor(description: string, ms: number): Promise<string> {
  const child = spawn('gst-launch-1.0', ['-e', ...description.split(/\s+/).filter(Boolean)], { env: { ...process.env, ...GST_ENV } });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
  const timer = setTimeout(() => child.kill('SIGINT'), ms);
  const hard = setTimeout(() => child.kill('SIGKILL'), ms + 5000);
  return new Promise((resolve) => child.on('exit', () => { clearTimeout(timer); clearTimeout(hard); resolve(out); }));
}

const FRAME_BYTES = 320 * 240 * 1.5;

beforeAll(async () => {
  svc = await startService();
  dir = mkdtempSync(join(tmpdir(), 'audio-e2e-'));
  const wav = join(dir, 'speech.wav');
  await run('espeak-ng', ['-w', wav, 'The quick brown fox jumps over the lazy dog. Codec two carries speech over a narrow radio link.']);
  speechFile = join(dir, 'speech.mkv');
  const r = await run('gst-launch-1.0', ['-q', '-e',
    'videotestsrc', 'num-buffers=75', '!', 'video/x-raw,width=320,height=240,framerate=15/1', '!', 'x264enc', 'speed-preset=ultrafast', '!', 'h264parse', '!', 'queue', '!', 'matroskamux', 'name=m', '!', 'filesink', `location=${speechFile}`,
    'filesrc', `location=${wav}`, '!', 'wavparse', '!', 'audioconvert', '!', 'audioresample', '!', 'audio/x-raw,rate=16000', '!', 'queue', '!', 'm.'], { timeoutMs: 30000 });
  expect(r.code, r.stderr).toBe(0);
}, 60000);

afterAll(async () => {
  await svc?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the spec Audio validation table over HTTPS, word for word', () => {
  const rows: Array<[string, Record<string, unknown>, string]> = [
    ['bad Codec2 mode', { audio: { source: 'test', codec2_mode: 2000 } }, 'audio.codec2_mode must be one of 3200, 2400, 1600, 1400, 1300, 1200'],
    ['test wave out of range', { audio: { source: 'test', test_wave: 13 } }, 'audio.test_wave must be between 0 and 12'],
    ['volume out of range', { audio: { source: 'test', volume: 2.5 } }, 'audio.volume must be between 0.0 and 2.0'],
    ['level out of range', { audio: { source: 'test', noise_suppression_level: 0 } }, 'audio.noise_suppression_level must be between 1 and 4'],
    ['local without device', { audio: { source: 'local' } }, 'audio.device is required when audio.source is local'],
    ['bad device path', { audio: { source: 'local', device: 'hw:1,0 ! fakesink' } }, 'audio.device must be a valid ALSA device path'],
    ['stream audio with test video', { audio: { source: 'stream' } }, 'audio.source cannot be stream when the video source is a test source'],
    ['stream is the default source', { audio: {} }, 'audio.source cannot be stream when the video source is a test source'],
  ];
  it.each(rows)('%s', async (_label, extra, message) => {
    const r = await svc.api('POST', '/svc/pipeline', h264Body(nextId(), 'rtsp://127.0.0.1:18554/x', extra));
    expect(r.status, r.text).toBe(400);
    expect(r.body.code).toBe('VALIDATION_ERROR');
    expect(r.body.details.errors).toContain(message);
  });

  it.each(['udp://127.0.0.1:5990', 'udp://lo@239.9.9.9:5990', 'tcp://0.0.0.0:5991', 'tcp://127.0.0.1:5992'])('non-AV1 with audio on %s', async (uri) => {
    const r = await svc.api('POST', '/svc/pipeline', h264Body(nextId(), uri, { audio: { source: 'test' } }));
    expect(r.status, r.text).toBe(400);
    expect(r.body.details.errors).toEqual(['audio over these outputs requires the AV1 video codec']);
  });

  it('audio in multiview or advanced mode; audio into a file', async () => {
    const mv = await svc.api('POST', '/svc/pipeline', { id: nextId(), mode: 'multiview', inputs: [{ source: { uri: 'test://ball' } }], output: { uri: 'rtsp://127.0.0.1:18554/x' }, audio: { source: 'test' } });
    expect(mv.status).toBe(400);
    expect(mv.body.details.errors).toContain('audio requires simple mode');
    const adv = await svc.api('POST', '/svc/pipeline', { id: nextId(), mode: 'advanced', raw_pipeline: 'videotestsrc ! fakesink', audio: { source: 'test' } });
    expect(adv.status).toBe(400);
    expect(adv.body.details.errors).toContain('audio requires simple mode');
    const file = await svc.api('POST', '/svc/pipeline', h264Body(nextId(), join(dir, 'x.mkv'), { audio: { source: 'test' } }));
    expect(file.status).toBe(400);
    expect(file.body.details.errors).toContain('audio cannot be recorded into a .mkv file: no container carries Codec2; use an RTSP, UDP or TCP output');
  });

  it('accepted devices and the spec defaults (on demand: nothing opens the device)', async () => {
    for (const device of ['dsnoop:0,0', 'plughw:0,0', 'hw:1,0', 'hw:1,0,2', 'default', 'sysdefault:CARD=x']) {
      const id = nextId();
      const r = await svc.api('POST', '/svc/pipeline', { ...h264Body(id, `rtsp://127.0.0.1:${await freePort()}/a`), on_demand: true, audio: { source: 'local', device } });
      expect(r.status, `${device}: ${r.text}`).toBe(201);
      expect(r.body.audio).toEqual({ source: 'local', device, test_wave: 0, codec2_mode: 2400, noise_filter: true, noise_suppression: true, noise_suppression_level: 2, auto_gain_control: true });
      expect((await svc.api('DELETE', `/svc/pipeline/${id}`)).status).toBe(204);
    }
  });
});

describe('speech end to end', () => {
  it('an RTSP client receives the H.264 track and the Codec2 track; the audio decodes to speech', async () => {
    const port = await freePort();
    const id = nextId();
    const body = {
      id, mode: 'simple', source: { uri: `file://${speechFile}` },
      encoding: { codec: 'h264', bitrate: 300, width: 320, height: 240, fps: 15, quality: 1 },
      output: { uri: `rtsp://127.0.0.1:${port}/live` }, audio: { source: 'stream', codec2_mode: 2400 },
    };
    const r = await svc.api('POST', '/svc/pipeline', body);
    expect(r.status, r.text).toBe(201);
    const sdp = await svc.api('GET', `/svc/pipeline/${id}/sdp`);
    expect(sdp.text).toContain('a=rtpmap:97 CODEC2/8000\r\na=fmtp:97 mode=2400\r\n');
    const v = join(dir, 'rtsp.yuv');
    const a = join(dir, 'rtsp.s16');
    const out = await receiveFor(
      `rtspsrc location=rtsp://127.0.0.1:${port}/live protocols=tcp latency=100 name=s `
      + `s. ! application/x-rtp,media=video ! queue ! rtph264depay ! h264parse ! avdec_h264 ! videoconvert ! video/x-raw,format=I420 ! filesink async=false location=${v} `
      + `s. ! application/x-rtp,media=audio,encoding-name=CODEC2 ! queue ! rtpcodec2depay ! codec2dec ! filesink location=${a}`, 9000);
    expect(existsSync(v) && existsSync(a), out).toBe(true);
    expect(statSync(v).size / FRAME_BYTES, out).toBeGreaterThan(30);
    expect(statSync(a).size / 16000, out).toBeGreaterThan(4); // seconds of 8 kHz S16
    expect(rmsDb(a)).toBeGreaterThan(-40);
    expect(envelopeSpread(a)).toBeGreaterThan(0.5);
    await svc.api('DELETE', `/svc/pipeline/${id}`);
  }, 60000);

  it('the AV1 + Codec2 UDP bundle is received and decoded through the published SDP', async () => {
    const port = await freePort();
    const id = nextId();
    const body = {
      id, mode: 'simple', source: { uri: `file://${speechFile}` },
      encoding: { codec: 'av1', bitrate: 300, width: 320, height: 240, fps: 15, quality: 1 },
      output: { uri: `udp://127.0.0.1:${port}` }, audio: { source: 'stream', codec2_mode: 1300 },
    };
    expect((await svc.api('POST', '/svc/pipeline', body)).status).toBe(201);
    const sdp = (await svc.api('GET', `/svc/pipeline/${id}/sdp`)).text;
    writeFileSync(join(dir, 'bundle.sdp'), sdp);
    expect(sdp).toContain(`m=video ${port} RTP/AVP 96\r\na=rtpmap:96 AV1/90000\r\n`);
    expect(sdp).toContain(`m=audio ${port} RTP/AVP 97\r\na=rtpmap:97 CODEC2/8000\r\na=fmtp:97 mode=1300\r\n`);
    // Both streams share one port, which sdpdemux cannot read (one socket per m= line); a receiver takes every
    // m= line's caps from the SDP and splits the port by payload type, every sink async=false: a prerolling sink
    // waits for the others, and the audio queue then blocks the one thread reading the socket (docs/audio.md).
    const capsOf = (media: string) => {
      const block = sdp.split('m=').find((b) => b.startsWith(media))!;
      const pt = /RTP\/AVP (\d+)/.exec(block)![1];
      const [, enc, rate] = new RegExp(`a=rtpmap:${pt} ([A-Z0-9]+)/(\\d+)`).exec(block)!;
      const fmtp = new RegExp(`a=fmtp:${pt} (.*)\r`).exec(block)?.[1];
      const params = fmtp ? `,${fmtp.split(';').map((kv) => kv.trim().replace('=', '=(string)')).join(',')}` : '';
      return { pt, caps: `application/x-rtp,media=${media},clock-rate=${rate},encoding-name=${enc},payload=${pt}${params}` };
    };
    const video = capsOf('video');
    const audio = capsOf('audio');
    const v = join(dir, 'udp.yuv');
    const a = join(dir, 'udp.s16');
    const out = await receiveFor(
      `udpsrc address=127.0.0.1 port=${port} caps=${video.caps} ! rtpptdemux name=d `
      + `d.src_${video.pt} ! queue ! rtpjitterbuffer latency=200 ! rtpav1depay ! av1parse ! av1dec ! videoconvert ! video/x-raw,format=I420 ! filesink async=false location=${v} `
      + `d.src_${audio.pt} ! queue ! capssetter join=false replace=true caps=${audio.caps} ! rtpcodec2depay ! codec2dec ! filesink async=false location=${a} `
      // Any further stream of the bundle (KLV) is taken and dropped, so the demuxer never meets an unlinked pad.
      + [...sdp.matchAll(/^m=\S+ \d+ RTP\/AVP (\d+)/gm)].map((m) => m[1]).filter((pt) => pt !== video.pt && pt !== audio.pt)
        .map((pt) => `d.src_${pt} ! queue ! fakesink async=false`).join(' '), 9000);
    await sleep(100);
    expect(existsSync(v) && existsSync(a), out).toBe(true);
    expect(statSync(v).size / FRAME_BYTES, out).toBeGreaterThan(20);
    expect(statSync(a).size / 16000, out).toBeGreaterThan(4);
    expect(rmsDb(a)).toBeGreaterThan(-40);
    expect(envelopeSpread(a)).toBeGreaterThan(0.5);
    await svc.api('DELETE', `/svc/pipeline/${id}`);
  }, 60000);
});
