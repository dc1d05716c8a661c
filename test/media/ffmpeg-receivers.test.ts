// ffmpeg as the judge (issue 14, "Media defects, from ffmpeg as the receiver"): GStreamer's avdec_h264 conceals
// damage that ffmpeg reports, so each case reads the stream with `ffmpeg -i <url> -frames:v 30 -f null -` and counts
// the error lines printed after the first decoded frame (the first keyframe; what comes before it is a joiner's
// wait, not damage).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, run, startService, waitFor, type RunningService } from '../helpers/service';
import { body } from './receivers';

let svc: RunningService;
let dir: string;

beforeAll(async () => {
  svc = await startService({ args: ['--start-timeout-ms', '6000'] });
  dir = mkdtempSync(join(tmpdir(), 'encoderd-ffmpeg-'));
});

afterAll(async () => {
  await svc?.stop();
});

async function remove(id: string): Promise<void> {
  await svc.api('PUT', `/svc/pipeline/${id}/stop`);
  await svc.api('DELETE', `/svc/pipeline/${id}`);
}

async function create(b: object): Promise<void> {
  const r = await svc.api('POST', '/svc/pipeline', b);
  expect(r.status, r.text).toBe(201);
  expect(r.body.state).toBe('playing');
}

/**
 * Decodes `frames` frames of `input` with ffmpeg and returns the damage it reports after the first decoded frame:
 * every error line, and the warnings and notes it gives for a damaged picture ("corrupt decoded frame",
 * "concealing … errors"). `showinfo` logs each frame at info level; `-loglevel level` tags every line with its level.
 */
async function ffmpegErrors(input: string[], frames = 30): Promise<{ errors: string[]; decoded: number; keyframes: number; log: string }> {
  const r = await run('ffmpeg', ['-hide_banner', '-nostdin', '-loglevel', 'level+info', ...input,
    '-frames:v', String(frames), '-vf', 'showinfo', '-f', 'null', '-'], { timeoutMs: 20000 });
  const lines = r.stderr.split('\n');
  const frameLines = lines.filter((l) => /Parsed_showinfo.*\bn:\s*\d+ /.test(l));
  const first = lines.findIndex((l) => /Parsed_showinfo.*\bn:\s*0 /.test(l));
  const errors = first < 0 ? [] : lines.slice(first).filter((l) => /\[(error|fatal|panic)\]|corrupt decoded frame|concealing \d+ DC/.test(l));
  return { errors, decoded: frameLines.length, keyframes: frameLines.filter((l) => /iskey:1/.test(l)).length, log: r.stderr };
}

describe('H.264 on the local RTSP output', () => {
  let url: string;
  beforeAll(async () => {
    const port = await freePort();
    await create(body('ff-origin', 'h264', `rtsp://127.0.0.1:${port}/x`));
    url = `rtsp://127.0.0.1:${port}/x`;
  });
  afterAll(async () => remove('ff-origin'));

  for (const transport of ['tcp', 'udp']) {
    it(`decodes in ffmpeg over ${transport.toUpperCase()} with no error after the first keyframe`, async () => {
      // 40 frames at 15 fps: the keyframe asked for at PLAY and the next one of the 2 s GOP.
      const r = await ffmpegErrors(['-rtsp_transport', transport, '-i', url], 40);
      expect(r.decoded, r.log).toBeGreaterThanOrEqual(40);
      expect(r.keyframes, r.log).toBeGreaterThanOrEqual(2);
      expect(r.errors, r.log).toEqual([]);
    });
  }
});

describe('an H.264 RTSP source passed through (no encoding)', () => {
  let src: string;
  beforeAll(async () => {
    const port = await freePort();
    await create(body('ff-origin2', 'h264', `rtsp://127.0.0.1:${port}/x`));
    src = `rtsp://127.0.0.1:${port}/x`;
  });
  afterAll(async () => remove('ff-origin2'));

  const relay = (id: string, outputUri: string) => ({ id, mode: 'simple', source: { uri: src, latency_ms: 100 }, output: { uri: outputUri } });

  it('into a local RTSP output: ffmpeg decodes it with no error after the first keyframe', async () => {
    const port = await freePort();
    await create(relay('ff-rtsp', `rtsp://127.0.0.1:${port}/r`));
    const r = await ffmpegErrors(['-rtsp_transport', 'tcp', '-i', `rtsp://127.0.0.1:${port}/r`], 40);
    expect(r.decoded, r.log).toBeGreaterThanOrEqual(40);
    expect(r.keyframes, r.log).toBeGreaterThanOrEqual(2);
    expect(r.errors, r.log).toEqual([]);
    await remove('ff-rtsp');
  });

  it('into .mp4: the pipeline stays healthy and the recording decodes with no error after the first keyframe', async () => {
    const path = join(dir, 'relay.mp4');
    await create(relay('ff-mp4', path));
    // Three seconds of frames (45 at 15 fps) into the muxer, or a failing health, whichever comes first.
    const view = await waitFor(async () => {
      const v = (await svc.api('GET', '/svc/pipeline/ff-mp4')).body;
      return v.health === 'failing' || (v.stats?.output?.frames ?? 0) >= 45 ? v : null;
    }, 15000);
    expect(view.health, JSON.stringify(view)).toBe('ok');
    expect(view.stats.last_error, JSON.stringify(view)).toBeNull();
    await remove('ff-mp4');
    const r = await ffmpegErrors(['-i', path], 30);
    expect(r.decoded, r.log).toBeGreaterThanOrEqual(30);
    expect(r.errors, r.log).toEqual([]);
  });
});
