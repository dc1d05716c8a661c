/**
 * The DASH output (plugins/outputs/dash) through the real service over HTTPS, with a password set: the live MPD and
 * its MPEG-TS segments served at GET /svc/pipeline/{id}/dash/{file}, read by ffprobe and decoded by ffmpeg; only the
 * plugin's own files are served; old segments are deleted while it plays; stop and delete clean up; what it cannot
 * carry is refused at create.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptSegments } from '../../plugins/outputs/dash/retention';
import { run, startService, waitFor, type RunningService } from '../helpers/service';
import { body } from './receivers';

const PASSWORD = 'dash behind the gate';
const ID = 'dash-a';

let svc: RunningService;
let token: string;
let staleDir: string;

const api = (method: string, path: string, b?: unknown) => svc.api(method, path, b, { token });
const url = (id: string, file: string) => `https://127.0.0.1:${svc.port}/svc/pipeline/${id}/dash/${file}`;
const outputDir = (id: string) => join(svc.dataDir, 'outputs', id);
const segmentNumbers = (id: string): number[] => {
  try {
    return readdirSync(outputDir(id)).flatMap((f) => /^video_0_(\d+)\.ts$/.exec(f)?.[1] ?? []).map(Number).sort((a, b) => a - b);
  } catch {
    return [];
  }
};

/** The served MPD, once at least n segments are complete (the newest one is still being written). */
async function ready(id: string, n: number, timeoutMs = 15000): Promise<string> {
  return waitFor(async () => {
    if (segmentNumbers(id).length < n + 1) return null;
    const r = await api('GET', `/svc/pipeline/${id}/dash/index.mpd`);
    return r.status === 200 ? r.text : null;
  }, timeoutMs);
}

async function create(id: string, uri = 'dash://', codec: 'h264' | 'h265' = 'h264'): Promise<void> {
  const r = await api('POST', '/svc/pipeline', body(id, codec, uri));
  expect(r.status, r.text).toBe(201);
  expect(r.body.state).toBe('playing');
}

// ffmpeg sends the header with the MPD and with every segment; it verifies no certificate by default.
const auth = () => ['-headers', `Authorization: Bearer ${token}\r\n`];

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'encoderd-dash-'));
  // What a killed service left behind: gone once the new one has started.
  staleDir = join(dataDir, 'outputs', 'stale');
  mkdirSync(staleDir, { recursive: true });
  writeFileSync(join(staleDir, 'index.mpd'), '<MPD/>');
  svc = await startService({ dataDir });
  expect((await svc.api('PUT', '/svc/auth/password', { password: PASSWORD })).status).toBe(200);
  token = (await svc.api('POST', '/svc/auth/login', { password: PASSWORD })).body.token as string;
  await create(ID);
});

afterAll(async () => {
  await svc?.stop();
});

describe('DASH output', () => {
  it('serves a live MPD and MPEG-TS segments with their types; ffprobe reads them and ffmpeg decodes them without an error', async () => {
    const mpd = await ready(ID, 2);
    expect(mpd).toContain('type="dynamic"');
    expect(mpd).toContain('minimumUpdatePeriod="P0Y0M0DT0H0M1.0S"');
    expect(mpd).not.toContain('mediaPresentationDuration');
    expect(mpd).toMatch(/<Representation id="video_0"[^>]* width="320" height="240" mimeType="video\/mp2t"/);
    expect(mpd).toContain('<SegmentTemplate media="video_0_$Number$.ts" duration="1"/>');
    const served = await api('GET', `/svc/pipeline/${ID}/dash/index.mpd`);
    expect(served.headers['content-type']).toBe('application/dash+xml');
    expect(served.headers['cache-control']).toBe('no-cache');
    const segment = await api('GET', `/svc/pipeline/${ID}/dash/video_0_${segmentNumbers(ID)[0]}.ts`);
    expect(segment.status).toBe(200);
    expect(segment.headers['content-type']).toBe('video/mp2t');
    expect(segment.headers['cache-control']).toBe('no-cache');

    const probe = await run('ffprobe', ['-v', 'error', ...auth(), '-show_entries', 'stream=codec_name,width,height', '-of', 'json', url(ID, 'index.mpd')]);
    expect(probe.code, probe.stderr).toBe(0);
    expect(JSON.parse(probe.stdout).streams).toEqual([{ codec_name: 'h264', width: 320, height: 240 }]);
    // A segment opens with a keyframe, so every frame from the first one on decodes: not one error line. -re reads at
    // the stream's pace: ffmpeg 5.1's DASH demuxer does not wait for a live segment to be due, so reading faster it
    // would ask for segments not written yet (404) without end.
    const decode = await run('ffmpeg', ['-v', 'error', '-re', ...auth(), '-i', url(ID, 'index.mpd'), '-frames:v', '30', '-f', 'framecrc', '-']);
    expect(decode.code, decode.stderr).toBe(0);
    expect(decode.stderr).toBe('');
    expect(decode.stdout.split('\n').filter((l) => /^\s*0,/.test(l))).toHaveLength(30);
  });

  it('H.265 with 2 s segments reads in ffprobe; only the pipeline\'s own files the plugin declares are served: traversal, absolute names and other pipelines\' files are 404', async () => {
    await create('dash-b', 'dash://?segment=2', 'h265');
    expect(await ready('dash-b', 1)).toContain('<SegmentTemplate media="video_0_$Number$.ts" duration="2"/>');
    const probe = await run('ffprobe', ['-v', 'error', ...auth(), '-show_entries', 'stream=codec_name,width,height', '-of', 'json', url('dash-b', 'index.mpd')]);
    expect(probe.code, probe.stderr).toBe(0);
    expect(JSON.parse(probe.stdout).streams).toEqual([{ codec_name: 'hevc', width: 320, height: 240 }]);
    expect(outputDir('dash-b')).not.toBe(outputDir(ID));
    for (const file of ['..%2fdash-b%2findex.mpd', '..%2F..%2Foutputs%2Fdash-b%2Findex.mpd', '%2fetc%2fpasswd', '..', '.index.mpd',
      'index.mpd%00', 'video_0_88888.ts', 'video_1_1.ts', 'video_0_1.mp4', 'index.mpd.bak', 'dash.mpd']) {
      const r = await api('GET', `/svc/pipeline/${ID}/dash/${file}`);
      expect(r.status, file).toBe(404);
      expect(r.body.code, file).toBe('NOT_FOUND');
    }
    // A path the plugin does not declare, and a pipeline that does not exist.
    expect((await api('GET', `/svc/pipeline/${ID}/hls/index.mpd`)).status).toBe(404);
    expect((await api('GET', '/svc/pipeline/nope/dash/index.mpd')).body.code).toBe('NOT_FOUND');
    // The same guard as every route.
    expect((await svc.api('GET', `/svc/pipeline/${ID}/dash/index.mpd`)).status).toBe(401);
    expect((await api('PUT', '/svc/pipeline/dash-b/stop')).status).toBe(200);
    expect((await api('DELETE', '/svc/pipeline/dash-b')).status).toBe(204);
  });

  it('deletes the segments that fell behind the live edge while it plays', async () => {
    // dashsink keeps every segment; the plugin's check, handed the pipeline's own directory once a second, deletes
    // those more than 30 s behind the newest. A planted segment far ahead makes every real one expired at once.
    await ready(ID, 2);
    const before = segmentNumbers(ID);
    expect(before.at(-1)!).toBeLessThan(999999 - keptSegments(1));
    const planted = join(outputDir(ID), 'video_0_999999.ts');
    writeFileSync(planted, '');
    await waitFor(() => before.every((n) => !segmentNumbers(ID).includes(n)), 3000);
    expect(existsSync(planted)).toBe(true);
    expect(existsSync(join(outputDir(ID), 'index.mpd'))).toBe(true);
    expect((await api('GET', `/svc/pipeline/${ID}/dash/video_0_${before[0]}.ts`)).status).toBe(404);
  });

  it('stop removes the files, play starts afresh, delete removes the directory; a stale directory went at startup', async () => {
    expect(existsSync(staleDir)).toBe(false);
    expect((await api('PUT', `/svc/pipeline/${ID}/stop`)).status).toBe(200);
    expect(existsSync(outputDir(ID))).toBe(false);
    expect((await api('GET', `/svc/pipeline/${ID}/dash/index.mpd`)).status).toBe(404);
    expect((await api('PUT', `/svc/pipeline/${ID}/play`)).status).toBe(200);
    // The numbering starts again: nothing of the previous run is there.
    await ready(ID, 1);
    expect(segmentNumbers(ID)[0]).toBe(1);
    expect((await api('PUT', `/svc/pipeline/${ID}/stop`)).status).toBe(200);
    expect((await api('DELETE', `/svc/pipeline/${ID}`)).status).toBe(204);
    expect(existsSync(outputDir(ID))).toBe(false);
  });

  it('refuses at create what DASH cannot carry: AV1, audio, and bad parameters (400)', async () => {
    const av1 = await api('POST', '/svc/pipeline', body('dash-av1', 'av1', 'dash://'));
    expect(av1.status).toBe(400);
    expect(av1.text).toContain('output.uri: dash:// carries MPEG-TS, which cannot carry av1');
    const audio = await api('POST', '/svc/pipeline', body('dash-audio', 'h264', 'dash://', { audio: { source: 'test' } }));
    expect(audio.status).toBe(400);
    expect(audio.text).toContain('audio cannot be carried over dash://');
    const bad = await api('POST', '/svc/pipeline', body('dash-bad', 'h264', 'dash://?segment=0&muxer=mp4'));
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('output.uri: segment must be an integer from 1 to 10 (seconds)');
    expect(bad.text).toContain('output.uri: unknown parameter \\"muxer\\"');
    const onDemand = await api('POST', '/svc/pipeline', body('dash-od', 'h264', 'dash://', { on_demand: true }));
    expect(onDemand.status).toBe(400);
    expect(onDemand.text).toContain('on_demand is allowed only with a local RTSP output');
    expect((await api('GET', '/svc/pipeline')).body.map((p: { id: string }) => p.id)).toEqual([]);
  });
});
