/**
 * The HLS output (plugins/outputs/hls) through the real service over HTTPS, with a password set: the playlist and
 * segments served at GET /svc/pipeline/{id}/hls/{file}, read by ffprobe and decoded by ffmpeg, played by hls.js in
 * Debian's Chromium (playwright-core) with the glass-to-glass latency measured; only the plugin's own files are
 * served; stop and delete clean up; what HLS cannot carry is refused at create.
 */
import { existsSync, mkdirSync, readdirSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ROOT, run, startService, waitFor, type RunningService } from '../helpers/service';
import { body } from './receivers';

const CHROMIUM = '/usr/bin/chromium';
const PASSWORD = 'hls behind the gate';
const ID = 'hls-a';

let svc: RunningService;
let token: string;
let staleDir: string;

const api = (method: string, path: string, b?: unknown) => svc.api(method, path, b, { token });
const url = (id: string, file: string) => `https://127.0.0.1:${svc.port}/svc/pipeline/${id}/hls/${file}`;
const outputDir = (id: string) => join(svc.dataDir, 'outputs', id);

/** The segment names the served playlist lists (only once it lists at least n). */
async function listed(id: string, n: number): Promise<string[]> {
  return waitFor(async () => {
    const r = await api('GET', `/svc/pipeline/${id}/hls/index.m3u8`);
    const names = r.status === 200 ? r.text.split('\n').filter((l) => l.endsWith('.ts')) : [];
    return names.length >= n ? names : null;
  }, 15000);
}

async function create(id: string, uri = 'hls://', codec: 'h264' | 'h265' = 'h264'): Promise<void> {
  const r = await api('POST', '/svc/pipeline', body(id, codec, uri));
  expect(r.status, r.text).toBe(201);
  expect(r.body.state).toBe('playing');
}

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'encoderd-hls-'));
  // What a killed service left behind: gone once the new one has started.
  staleDir = join(dataDir, 'outputs', 'stale');
  mkdirSync(staleDir, { recursive: true });
  writeFileSync(join(staleDir, 'index.m3u8'), '#EXTM3U\n');
  svc = await startService({ dataDir });
  expect((await svc.api('PUT', '/svc/auth/password', { password: PASSWORD })).status).toBe(200);
  token = (await svc.api('POST', '/svc/auth/login', { password: PASSWORD })).body.token as string;
  await create(ID);
});

afterAll(async () => {
  await svc?.stop();
});

describe('HLS output', () => {
  it('serves the playlist and segments with their types; ffprobe reads them and ffmpeg decodes them without an error', async () => {
    const segments = await listed(ID, 2);
    const playlist = await api('GET', `/svc/pipeline/${ID}/hls/index.m3u8`);
    expect(playlist.headers['content-type']).toBe('application/vnd.apple.mpegurl');
    expect(playlist.headers['cache-control']).toBe('no-cache');
    expect(playlist.text).toMatch(/^#EXTM3U\n/);
    expect(playlist.text).toContain('#EXT-X-TARGETDURATION:1\n');
    const segment = await api('GET', `/svc/pipeline/${ID}/hls/${segments[0]}`);
    expect(segment.status).toBe(200);
    expect(segment.headers['content-type']).toBe('video/mp2t');
    expect(segment.headers['cache-control']).toBe('no-cache');

    // ffmpeg sends the header with the playlist and with every segment; it verifies no certificate by default.
    const auth = ['-headers', `Authorization: Bearer ${token}\r\n`];
    const probe = await run('ffprobe', ['-v', 'error', ...auth, '-show_entries', 'stream=codec_name,width,height', '-of', 'json', url(ID, 'index.m3u8')]);
    expect(probe.code, probe.stderr).toBe(0);
    expect(JSON.parse(probe.stdout).streams).toEqual([{ codec_name: 'h264', width: 320, height: 240 }]);
    // A segment opens with a keyframe, so every frame from the first one on decodes: not one error line.
    const decode = await run('ffmpeg', ['-v', 'error', ...auth, '-i', url(ID, 'index.m3u8'), '-frames:v', '20', '-f', 'framecrc', '-']);
    expect(decode.code, decode.stderr).toBe(0);
    expect(decode.stderr).toBe('');
    expect(decode.stdout.split('\n').filter((l) => /^\s*0,/.test(l))).toHaveLength(20);
  });

  describe.skipIf(!existsSync(CHROMIUM))('in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
          '--disable-component-update', '--disable-sync', '--autoplay-policy=no-user-gesture-required'],
      });
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('hls.js plays it (currentTime advances, videoWidth 320); the latency behind the source is measured', async () => {
      // A playlist to start from (hls.js gives up on a 404 at load).
      await listed(ID, 2);
      // When each segment file appeared: the moment its first frame (a keyframe) reached the muxer. Files there
      // before the watch are left out: the first event seen of one may be its deletion.
      const opened = new Map<string, number>();
      const before = new Set<string>();
      const watcher: FSWatcher = watch(outputDir(ID), (_event, name) => {
        if (name && /\.ts$/.test(name) && !opened.has(name) && !before.has(name)) opened.set(name, Date.now());
      });
      for (const name of readdirSync(outputDir(ID))) if (!opened.has(name)) before.add(name);
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      try {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        // The page is served on the API's own origin (intercepted, never reaching the service), so no CORS is involved.
        const pageUrl = `https://127.0.0.1:${svc.port}/hls-test.html`;
        await page.route(pageUrl, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><video muted playsinline></video>' }));
        await page.goto(pageUrl);
        await page.addScriptTag({ path: join(ROOT, 'node_modules/hls.js/dist/hls.min.js') });
        await page.evaluate(({ src, bearer }) => {
          const w = window as unknown as { Hls: any; frags: Array<{ url: string; at: number }>; hlsErrors: string[] };
          w.frags = [];
          w.hlsErrors = [];
          const video = document.querySelector('video') as HTMLVideoElement;
          // A preview's settings: one segment behind the playlist's edge, catching up by playing faster rather than waiting.
          const hls = new w.Hls({
            xhrSetup: (xhr: XMLHttpRequest) => xhr.setRequestHeader('Authorization', `Bearer ${bearer}`),
            liveSyncDuration: 1, liveMaxLatencyDuration: 4, maxLiveSyncPlaybackRate: 1.5, backBufferLength: 4,
          });
          hls.on(w.Hls.Events.FRAG_CHANGED, (_e: unknown, d: { frag: { relurl: string } }) => w.frags.push({ url: d.frag.relurl, at: Date.now() }));
          hls.on(w.Hls.Events.ERROR, (_e: unknown, d: { fatal: boolean; details: string }) => { if (d.fatal) w.hlsErrors.push(d.details); });
          hls.loadSource(src);
          hls.attachMedia(video);
          void video.play();
        }, { src: `/svc/pipeline/${ID}/hls/index.m3u8`, bearer: token });

        const state = () => page.evaluate(() => {
          const v = document.querySelector('video') as HTMLVideoElement;
          return { t: v.currentTime, width: v.videoWidth, height: v.videoHeight };
        });
        await expect.poll(async () => (await state()).t, { timeout: 20000 }).toBeGreaterThan(1);
        // videoWidth follows the first decoded frame's size, which a loaded machine reports a moment after the
        // clock starts (a full suite beside a soak saw t = 4 with a width still 0): wait for it, then for more time.
        await expect.poll(async () => { const s = await state(); return { width: s.width, height: s.height }; }, { timeout: 10000 })
          .toEqual({ width: 320, height: 240 });
        const first = await state();
        await expect.poll(async () => (await state()).t, { timeout: 10000 }).toBeGreaterThan(first.t + 1);

        // Latency: when a segment starts to play, minus when its first frame was muxed; the encoder's own delay
        // (x264 zerolatency, a frame or two) comes on top.
        await expect.poll(() => page.evaluate(() => (window as unknown as { frags: unknown[] }).frags.length), { timeout: 20000 }).toBeGreaterThanOrEqual(6);
        const frags = await page.evaluate(() => (window as unknown as { frags: Array<{ url: string; at: number }> }).frags);
        const latencies = frags.slice(2).filter((f) => opened.has(f.url)).map((f) => f.at - opened.get(f.url)!).sort((a, b) => a - b);
        expect(latencies.length).toBeGreaterThanOrEqual(3);
        const median = latencies[Math.floor(latencies.length / 2)];
        console.log(`HLS glass-to-glass latency (segment 1 s, hls.js liveSyncDuration 1): median ${median} ms, ${latencies.join(', ')} ms`);
        expect(median).toBeLessThan(4000);
        expect(await page.evaluate(() => (window as unknown as { hlsErrors: string[] }).hlsErrors)).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        watcher.close();
        await context.close();
      }
    });
  });

  it('H.265 with 2 s segments reads in ffprobe; only the pipeline\'s own files the plugin declares are served: traversal, absolute names and other pipelines\' files are 404', async () => {
    await create('hls-b', 'hls://?segment=2&playlist_length=3', 'h265');
    await listed('hls-b', 1);
    expect((await api('GET', '/svc/pipeline/hls-b/hls/index.m3u8')).text).toContain('#EXT-X-TARGETDURATION:2\n');
    const probe = await run('ffprobe', ['-v', 'error', '-headers', `Authorization: Bearer ${token}\r\n`, '-show_entries', 'stream=codec_name,width,height', '-of', 'json', url('hls-b', 'index.m3u8')]);
    expect(probe.code, probe.stderr).toBe(0);
    expect(JSON.parse(probe.stdout).streams).toEqual([{ codec_name: 'hevc', width: 320, height: 240 }]);
    // Two pipelines, two directories.
    expect(readdirSync(outputDir('hls-b'))).toContain('index.m3u8');
    expect(outputDir('hls-b')).not.toBe(outputDir(ID));
    for (const file of ['..%2fhls-b%2findex.m3u8', '..%2F..%2Foutputs%2Fhls-b%2Findex.m3u8', '%2fetc%2fpasswd', '..', '.index.m3u8',
      'index.m3u8%00', 'segment99999.ts', 'segment1.ts', 'index.m3u8.bak']) {
      const r = await api('GET', `/svc/pipeline/${ID}/hls/${file}`);
      expect(r.status, file).toBe(404);
      expect(r.body.code, file).toBe('NOT_FOUND');
    }
    // A path the plugin does not declare, and a pipeline that does not exist.
    expect((await api('GET', `/svc/pipeline/${ID}/dash/index.m3u8`)).status).toBe(404);
    expect((await api('GET', '/svc/pipeline/nope/hls/index.m3u8')).body.code).toBe('NOT_FOUND');
    // The same guard as every route.
    const anonymous = await svc.api('GET', `/svc/pipeline/${ID}/hls/index.m3u8`);
    expect(anonymous.status).toBe(401);
    expect((await svc.api('GET', `/svc/pipeline/${ID}/hls/index.m3u8`, undefined, { token: `${token}x` })).status).toBe(401);
    expect((await api('PUT', '/svc/pipeline/hls-b/stop')).status).toBe(200);
    expect((await api('DELETE', '/svc/pipeline/hls-b')).status).toBe(204);
  });

  it('stop removes the files, play starts afresh, delete removes the directory; a stale directory went at startup', async () => {
    expect(existsSync(staleDir)).toBe(false);
    expect((await api('PUT', `/svc/pipeline/${ID}/stop`)).status).toBe(200);
    expect(existsSync(outputDir(ID))).toBe(false);
    expect((await api('GET', `/svc/pipeline/${ID}/hls/index.m3u8`)).status).toBe(404);
    expect((await api('PUT', `/svc/pipeline/${ID}/play`)).status).toBe(200);
    // The numbering starts again: nothing of the previous run is listed.
    expect((await listed(ID, 1))[0]).toBe('segment00000.ts');
    expect((await api('PUT', `/svc/pipeline/${ID}/stop`)).status).toBe(200);
    expect((await api('DELETE', `/svc/pipeline/${ID}`)).status).toBe(204);
    expect(existsSync(outputDir(ID))).toBe(false);
  });

  it('refuses at create what HLS cannot carry: AV1, audio, and bad parameters (400)', async () => {
    const av1 = await api('POST', '/svc/pipeline', body('hls-av1', 'av1', 'hls://'));
    expect(av1.status).toBe(400);
    expect(av1.text).toContain('output.uri: hls:// carries MPEG-TS, which cannot carry av1');
    const audio = await api('POST', '/svc/pipeline', body('hls-audio', 'h264', 'hls://', { audio: { source: 'test' } }));
    expect(audio.status).toBe(400);
    expect(audio.text).toContain('audio cannot be carried over hls://');
    const bad = await api('POST', '/svc/pipeline', body('hls-bad', 'h264', 'hls://?segment=0&fast=1'));
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('output.uri: segment must be an integer from 1 to 10 (seconds)');
    expect(bad.text).toContain('output.uri: unknown parameter \\"fast\\"');
    expect((await api('GET', '/svc/pipeline')).body.map((p: { id: string }) => p.id)).toEqual([]);
  });
});
