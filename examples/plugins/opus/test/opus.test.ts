/**
 * The Opus example end to end: loaded the way encoderd loads it (--plugins-dir), its parameters are fields of
 * `audio` in the API's schema and OpenAPI document and are validated in the schema's words, and a simple-mode pipeline
 * with Opus audio plays over the local RTSP output to ffprobe, which finds an opus track and decodes its frames
 * without an error line. Over UDP beside H.264 the audio goes into MPEG-TS (Opus has an MPEG-TS mapping; Codec2,
 * which has none, is refused there). From a file's own audio (audio.source stream, 44.1 kHz stereo, the filters on: the
 * path a microphone would take, without the ALSA card no test machine has), Opus is coded from 48 kHz mono and keeps
 * what lies above 4 kHz, which 8 kHz audio cannot carry; Codec2 from the same file stays 8 kHz. Traffic only to
 * 127.0.0.1.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPluginFolder } from '../../../../core/plugins/loader';
import type { CodecPlugin } from '../../../../core/sdk';
import { freePort, h264Body, ROOT, run, startService, waitFor, type RunningService } from '../../../../test/helpers/service';
import { ffmpegErrors } from '../../../../test/media/ffmpeg-judge';
import { call } from '../../../../test/web/client';

const plugin = loadPluginFolder(join(__dirname, '..')) as CodecPlugin;

it('is the opus audio codec, licence feature opus, with its own parameters', () => {
  expect(plugin).toMatchObject({ kind: 'codec', name: 'opus', codec: 'opus', media: 'audio', licenceFeature: 'opus', caps: 'audio/x-opus' });
  expect(Object.keys(plugin.parameters ?? {})).toEqual(['opus_bitrate', 'opus_application']);
  const enc = plugin.encoder({ codec: 'opus', bitrate: 0, width: 0, height: 0, fps: 0, quality: 0, params: { opus_bitrate: 64000, opus_application: 'audio' } },
    { pipelineId: 'p', settings: { rtspLatencyMs: 0 }, name: (role) => role });
  expect(enc).toEqual({ element: 'aenc', description: expect.stringContaining('opusenc name="aenc" bitrate=64000 audio-type="generic"') });
});

/** The mean level of a file's audio in dBFS, after an ffmpeg filter when given (ffmpeg's volumedetect). */
async function meanVolume(file: string, filter?: string): Promise<number> {
  const r = await run('ffmpeg', ['-hide_banner', '-nostats', '-i', file, '-map', '0:a', '-af', filter ? `${filter},volumedetect` : 'volumedetect', '-f', 'null', '-'], { timeoutMs: 30000 });
  const m = /mean_volume: (-?[\d.]+|-inf) dB/.exec(r.stderr);
  if (!m) throw new Error(`no mean_volume from ffmpeg: ${r.stderr}`);
  return m[1] === '-inf' ? -Infinity : Number(m[1]);
}

/** Six 2-pole high-passes at 6 kHz: what is left is the audio above 6 kHz (8 kHz audio ends at 4 kHz, 70 dB below). */
const ABOVE_6K = Array(6).fill('highpass=f=6000').join(',');

/** OpusHead (RFC 7845), the Opus stream header a recording keeps: the channels and the rate the encoder was given. */
function opusHead(extradata: string): { channels: number; inputRate: number } {
  // ffprobe -show_data prints it as a hex dump: "00000000: 4f70 7573 …  OpusHead…"
  const hex = extradata.split('\n').map((l) => /^[0-9a-f]{8}: ((?:[0-9a-f]{2,4} )+)/.exec(l)?.[1] ?? '').join('').replace(/ /g, '');
  const head = Buffer.from(hex, 'hex');
  expect(head.subarray(0, 8).toString('latin1')).toBe('OpusHead');
  return { channels: head[9], inputRate: head.readUInt32LE(12) };
}

/** ffprobe's view of a stream: its streams, and what it printed at -v error (an error line fails the test). */
async function probe(url: string, args: string[] = []) {
  const r = await run('ffprobe', ['-v', 'error', ...args, '-count_frames', '-read_intervals', '%+3',
    '-show_entries', 'stream=codec_type,codec_name,sample_rate,nb_read_frames', '-of', 'json', url], { timeoutMs: 30000 });
  return { code: r.code, stderr: r.stderr.trim(), streams: (JSON.parse(r.stdout || '{}').streams ?? []) as Array<Record<string, string>> };
}

describe('a service with --plugins-dir examples/plugins', () => {
  let svc: RunningService;
  let explorer: number;
  beforeAll(async () => {
    explorer = await freePort();
    svc = await startService({ args: ['--plugins-dir', join(ROOT, 'examples/plugins'), '--explorer-port', String(explorer)] });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('documents audio.codec and the Opus parameters in the OpenAPI document', async () => {
    expect((await svc.api('PUT', '/svc/settings', { explorer_enabled: true })).status).toBe(200);
    const doc = await waitFor(async () => (await call(explorer, 'GET', '/openapi.json', { plain: true })).body, 5000);
    const text = JSON.stringify(doc);
    for (const field of ['"opus_bitrate"', '"opus_application"', '"codec2_mode"']) expect(text).toContain(field);
    expect(text).toContain('"enum":["codec2","opus"]');
  });

  it('validates the Opus parameters in the schema\'s words, and keeps each codec to its own', async () => {
    const bad = await svc.api('POST', '/svc/pipeline', h264Body('opus-bad', 'rtsp://127.0.0.1:18555/x', { audio: { source: 'test', codec: 'opus', opus_bitrate: 1000, opus_application: 'karaoke' } }));
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.details.errors).toEqual(['audio.opus_bitrate must be between 6000 and 510000', 'audio.opus_application must be one of voip, audio, lowdelay']);
    const foreign = await svc.api('POST', '/svc/pipeline', h264Body('opus-foreign', 'rtsp://127.0.0.1:18555/x', { audio: { source: 'test', codec: 'opus', codec2_mode: 2400 } }));
    expect(foreign.status, foreign.text).toBe(400);
    expect(foreign.body.details.errors).toEqual(['audio.codec2_mode applies only to audio.codec codec2']);
    // Without audio.codec the audio is still the spec's Codec2, with its default mode and nothing of Opus.
    const c2 = await svc.api('POST', '/svc/pipeline', { ...h264Body('opus-none', 'rtsp://127.0.0.1:18555/x', { audio: { source: 'test' } }), on_demand: true });
    expect(c2.status, c2.text).toBe(201);
    expect(c2.body.audio).toEqual({ source: 'test', test_wave: 0, codec2_mode: 2400, noise_filter: true, noise_suppression: true, noise_suppression_level: 2, auto_gain_control: true });
    expect((await svc.api('DELETE', '/svc/pipeline/opus-none')).status).toBe(204);
  });

  it('plays H.264 and Opus over the local RTSP output: ffprobe finds the opus track and decodes its frames cleanly', async () => {
    const port = await freePort();
    const url = `rtsp://127.0.0.1:${port}/live`;
    const r = await svc.api('POST', '/svc/pipeline', h264Body('opus-rtsp', url, { audio: { source: 'test', codec: 'opus', opus_bitrate: 48000 } }));
    expect(r.status, r.text).toBe(201);
    expect(r.body.state).toBe('playing');
    expect(r.body.audio).toMatchObject({ codec: 'opus', opus_bitrate: 48000, opus_application: 'voip' });
    expect(r.body.audio).not.toHaveProperty('codec2_mode');
    expect((await svc.api('GET', '/svc/pipeline/opus-rtsp/sdp')).text).toContain('a=rtpmap:97 OPUS/48000/2\r\n');
    const p = await probe(url, ['-rtsp_transport', 'tcp']);
    // A session opened on a playing pipeline may get the delta frames already on their way before the keyframe its
    // join asked for: the H.264 decoder's complaints until then are the join's wait (CI saw "Missing reference
    // picture" once). Nothing else may complain, and the judge below holds the video to zero errors after its
    // first frame.
    expect(p.stderr.split('\n').filter((l) => l && !l.startsWith('[h264 @'))).toEqual([]);
    expect(p.code).toBe(0);
    const audio = p.streams.find((s) => s.codec_type === 'audio');
    expect(audio).toMatchObject({ codec_name: 'opus', sample_rate: '48000' });
    expect(Number(audio!.nb_read_frames)).toBeGreaterThan(10);
    expect(p.streams.find((s) => s.codec_type === 'video')).toMatchObject({ codec_name: 'h264' });
    const verdict = await ffmpegErrors(['-rtsp_transport', 'tcp', '-i', url], 30);
    expect(verdict.errors, verdict.log).toEqual([]);
    expect(verdict.decoded).toBeGreaterThanOrEqual(30);
    expect((await svc.api('PUT', '/svc/pipeline/opus-rtsp/stop')).status).toBe(200);
  });

  it('over UDP beside H.264, Opus goes into the MPEG-TS; Codec2 is refused there in the spec\'s words', async () => {
    const port = await freePort();
    const c2 = await svc.api('POST', '/svc/pipeline', h264Body('c2-udp', `udp://127.0.0.1:${port}`, { audio: { source: 'test' } }));
    expect(c2.status).toBe(400);
    expect(c2.body.details.errors).toEqual(['audio over these outputs requires the AV1 video codec']);
    const r = await svc.api('POST', '/svc/pipeline', h264Body('opus-udp', `udp://127.0.0.1:${port}`, { audio: { source: 'test', codec: 'opus' } }));
    expect(r.status, r.text).toBe(201);
    const p = await probe(`udp://127.0.0.1:${port}?timeout=10000000`);
    // A receiver that joins a live MPEG-TS mid-stream sees H.264 slices before the next parameter sets: the H.264
    // decoder's complaints until then are the late join's. Nothing else may complain: the demuxer, Opus.
    const others = p.stderr.split('\n').filter((l) => l && !l.startsWith('[h264 @') && !/^\s*Last message repeated/.test(l));
    expect(others).toEqual([]);
    // Beside the KLV stream a TS output always carries (docs/klv.md).
    expect(p.streams.map((s) => s.codec_name).sort()).toEqual(['h264', 'klv', 'opus']);
    expect(Number(p.streams.find((s) => s.codec_name === 'opus')!.nb_read_frames)).toBeGreaterThan(10);
    expect((await svc.api('PUT', '/svc/pipeline/opus-udp/stop')).status).toBe(200);
  });

  it('records H.264 and Opus into a .mkv file: ffprobe decodes both; Codec2 is still refused there in its own words', async () => {
    const file = join(svc.dataDir, 'opus.mkv');
    const c2 = await svc.api('POST', '/svc/pipeline', h264Body('c2-file', file, { audio: { source: 'test' } }));
    expect(c2.status).toBe(400);
    expect(c2.body.details.errors).toEqual(['audio cannot be recorded into a .mkv file: no container carries Codec2; use an RTSP, UDP or TCP output']);
    const r = await svc.api('POST', '/svc/pipeline', h264Body('opus-file', file, { audio: { source: 'test', codec: 'opus' } }));
    expect(r.status, r.text).toBe(201);
    await waitFor(async () => (await svc.api('GET', '/svc/pipeline/opus-file/stats')).body.stats?.output?.frames >= 45, 15000);
    expect((await svc.api('PUT', '/svc/pipeline/opus-file/stop')).status).toBe(200);
    const p = await probe(file);
    expect(p.stderr).toBe('');
    expect(p.streams.map((s) => s.codec_name).sort()).toEqual(['h264', 'opus']);
    expect(Number(p.streams.find((s) => s.codec_name === 'opus')!.nb_read_frames)).toBeGreaterThan(10);
  });

  describe('from a file\'s own audio with the filters on', () => {
    let media: string;
    beforeAll(async () => {
      // Speech with sibilants (their energy lies above 4 kHz), at 44.1 kHz stereo: neither codec's own format.
      const wav = join(svc.dataDir, 'speech.wav');
      expect((await run('espeak-ng', ['-w', wav, 'Six sharp scissors sliced the silk, and she sells seashells by the sea shore.'])).code).toBe(0);
      media = join(svc.dataDir, 'talk.mkv');
      const r = await run('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=15:duration=5', '-i', wav,
        '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'flac', '-ar', '44100', '-ac', '2', '-shortest', media], { timeoutMs: 30000 });
      expect(r.code, r.stderr).toBe(0);
    }, 40000);

    const fromFile = (id: string, output: string, audio: Record<string, unknown>) => ({
      ...h264Body(id, output), source: { uri: `file://${media}` }, encoding: { codec: 'h264', bitrate: 300, width: 320, height: 240, fps: 15 },
      audio: { source: 'stream', ...audio },
    });

    it('Opus is coded from 48 kHz mono and keeps the audio above 4 kHz', async () => {
      const file = join(svc.dataDir, 'opus-talk.mkv');
      const r = await svc.api('POST', '/svc/pipeline', fromFile('opus-talk', file, { codec: 'opus' }));
      expect(r.status, r.text).toBe(201);
      // The filters are on (the defaults), so the audio went through webrtcdsp.
      expect(r.body.audio).toMatchObject({ noise_filter: true, noise_suppression: true, auto_gain_control: true });
      // A loop of the file and more: enough speech to measure.
      await waitFor(async () => (await svc.api('GET', '/svc/pipeline/opus-talk/stats')).body.stats?.output?.frames >= 90, 30000);
      expect((await svc.api('PUT', '/svc/pipeline/opus-talk/stop')).status).toBe(200);
      const p = await run('ffprobe', ['-v', 'error', '-show_data', '-select_streams', 'a', '-show_entries', 'stream=codec_name,sample_rate,channels,extradata', '-of', 'json', file]);
      expect(p.stderr).toBe('');
      const stream = JSON.parse(p.stdout).streams[0];
      expect(stream).toMatchObject({ codec_name: 'opus', sample_rate: '48000', channels: 1 });
      // What opusenc was given, as it wrote it in its header: the core's chain ends in the codec's rawAudio.
      expect(opusHead(stream.extradata)).toEqual({ channels: 1, inputRate: 48000 });
      // Narrowed to 8 kHz anywhere on the way (the filters once ran there), the audio above 6 kHz would be ~70 dB down.
      const all = await meanVolume(file);
      const high = await meanVolume(file, ABOVE_6K);
      expect(all).toBeGreaterThan(-50);
      expect(high - all).toBeGreaterThan(-45);
    }, 60000);

    it('Codec2 from the same file stays 8 kHz: ffprobe reads an 8 kHz audio track over RTSP', async () => {
      const port = await freePort();
      const url = `rtsp://127.0.0.1:${port}/talk`;
      const r = await svc.api('POST', '/svc/pipeline', fromFile('c2-talk', url, {}));
      expect(r.status, r.text).toBe(201);
      expect(r.body.state).toBe('playing');
      expect((await svc.api('GET', '/svc/pipeline/c2-talk/sdp')).text).toContain('a=rtpmap:97 CODEC2/8000\r\n');
      const p = await probe(url, ['-rtsp_transport', 'tcp']);
      expect(p.code, p.stderr).toBe(0);
      expect(p.streams.find((s) => s.codec_type === 'audio')).toMatchObject({ sample_rate: '8000' });
      expect((await svc.api('PUT', '/svc/pipeline/c2-talk/stop')).status).toBe(200);
    }, 60000);
  });
});
