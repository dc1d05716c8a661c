/**
 * What the console reads besides the pipeline routes: one multiplexed event stream (GET /svc/events) and the current
 * picture of a pipeline (GET /svc/pipeline/{id}/snapshot), over real HTTPS from a real service.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, h264Body, run, startService, waitFor, type RunningService } from '../helpers/service';
import { openSse } from '../helpers/sse';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

/** Width and height from a baseline or progressive JPEG's SOF marker. */
function jpegSize(b: Buffer): { width: number; height: number } {
  let i = 2;
  while (i < b.length) {
    const marker = b[i + 1];
    const len = b.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xc2) return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    i += 2 + len;
  }
  throw new Error('no SOF marker');
}

/** A GET whose body is kept as bytes (the JSON helper decodes text). */
function getBytes(path: string): Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer; body: any }> {
  return new Promise((resolve, reject) => {
    httpsGet({ host: '127.0.0.1', port: svc.port, path, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        let body: unknown;
        try { body = JSON.parse(bytes.toString('utf8')); } catch { body = undefined; }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes, body });
      });
    }).on('error', reject);
  });
}

const snapshot = (id: string) => getBytes(`/svc/pipeline/${id}/snapshot`);

describe('GET /svc/events', () => {
  it('one stream: every pipeline\'s status on connect, then status, stats on request, errors and deletions, each with its pipeline id', async () => {
    const port = await freePort();
    expect((await svc.api('POST', '/svc/pipeline', h264Body('ev-a', `udp://127.0.0.1:${port}`))).status).toBe(201);
    const all = await openSse(svc.port, '/svc/events?stats=true');
    const plain = await openSse(svc.port, '/svc/events');
    try {
      const first = await all.next((e) => e.event === 'pipeline_status' && e.data.id === 'ev-a');
      expect(first.data.state).toBe('playing');
      const stats = await all.next((e) => e.event === 'pipeline_stats' && e.data.pipeline_id === 'ev-a', 5000);
      expect(stats.data.output.frames).toBeGreaterThan(0);

      // A second pipeline whose start fails (its recording's directory is gone by the time it plays): its error, with its id.
      const dir = mkdtempSync(join(tmpdir(), 'encoderd-ev-'));
      expect((await svc.api('POST', '/svc/pipeline', h264Body('ev-b', join(dir, 'rec.ts')))).status).toBe(201);
      expect((await svc.api('PUT', '/svc/pipeline/ev-b/stop')).status).toBe(200);
      rmSync(dir, { recursive: true, force: true });
      expect((await svc.api('PUT', '/svc/pipeline/ev-b/play')).status).toBe(504);
      const err = await all.next((e) => e.event === 'pipeline_error' && e.data.pipeline_id === 'ev-b', 5000);
      expect(err.data.message).toBeTruthy();
      await svc.api('DELETE', '/svc/pipeline/ev-b');
      await all.next((e) => e.event === 'pipeline_not_found' && e.data.pipeline_id === 'ev-b', 5000);
      await plain.next((e) => e.event === 'pipeline_not_found' && e.data.pipeline_id === 'ev-b', 5000);
      // The stream goes on after a deletion (unlike a pipeline's own stream), and without ?stats=true there are none.
      await all.next((e) => e.event === 'pipeline_stats' && all.events.indexOf(e) > all.events.findIndex((x) => x.event === 'pipeline_not_found'), 5000);
      expect(plain.events.some((e) => e.event === 'pipeline_stats')).toBe(false);
      expect(plain.events.filter((e) => e.event === 'pipeline_status').every((e) => typeof e.data.id === 'string')).toBe(true);
    } finally {
      all.close();
      plain.close();
      await svc.api('PUT', '/svc/pipeline/ev-a/stop');
    }
  });

  it('needs the same authentication as every route', async () => {
    const other = await startService();
    try {
      expect((await other.api('PUT', '/svc/auth/password', { password: 'correct horse battery' })).status).toBe(200);
      await expect(openSse(other.port, '/svc/events')).rejects.toThrow(/401/);
      const token = (await other.api('POST', '/svc/auth/login', { password: 'correct horse battery' })).body.token;
      const sse = await openSse(other.port, '/svc/events', { authorization: `Bearer ${token}` });
      sse.close();
    } finally {
      await other.stop();
    }
  });
});

describe('GET /svc/pipeline/{id}/snapshot', () => {
  it('the current picture as a JPEG of the pipeline\'s size, a new one each second; 409 while not playing', async () => {
    const body = h264Body('snap', `udp://127.0.0.1:${await freePort()}`, { encoding: { codec: 'h264', bitrate: 300, width: 320, height: 240, fps: 15 } });
    expect((await svc.api('POST', '/svc/pipeline', body)).status).toBe(201);
    const a = await snapshot('snap');
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toBe('image/jpeg');
    expect(a.headers['cache-control']).toBe('no-store');
    expect(a.bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(jpegSize(a.bytes)).toEqual({ width: 320, height: 240 });
    // The bouncing ball moves: a picture two seconds later is another one.
    const second = await waitFor(async () => {
      const b = await snapshot('snap');
      return b.status === 200 && !b.bytes.equals(a.bytes) ? b : undefined;
    }, 5000, 500);
    expect(second.status).toBe(200);
    await svc.api('PUT', '/svc/pipeline/snap/stop');
    const stopped = await snapshot('snap');
    expect(stopped.status).toBe(409);
    expect(stopped.body.code).toBe('CONFLICT');
    expect((await snapshot('nope')).status).toBe(404);
  });

  it('decodes to the configured size (ffprobe), and framegrabs beside it keep their own interval', async () => {
    const dir = svc.dataDir;
    const body = h264Body('snap2', `udp://127.0.0.1:${await freePort()}`, { encoding: { codec: 'h264', bitrate: 300, width: 352, height: 288, fps: 15 } });
    expect((await svc.api('POST', '/svc/pipeline', body)).status).toBe(201);
    expect((await svc.api('PUT', '/svc/pipeline/snap2/framegrab/start', { interval_seconds: 3 })).status).toBe(200);
    const started = Date.now();
    let last: Buffer | undefined;
    while (Date.now() - started < 6500) {
      const r = await snapshot('snap2');
      expect(r.status).toBe(200);
      last = r.bytes;
    }
    expect(jpegSize(last!)).toEqual({ width: 352, height: 288 });
    const file = join(dir, 'snap.jpg');
    writeFileSync(file, last!);
    const probe = await run('ffprobe', ['-v', 'error', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', file]);
    expect(probe.stdout.trim()).toBe('352,288');
    await svc.api('PUT', '/svc/pipeline/snap2/framegrab/stop');
    // ~6.5 s at one framegrab per 3 s: 2 or 3 files, not the 6 or 7 a picture a second would have made.
    const files = readdirSync(join(dir, 'framegrabs', 'snap2'));
    expect(files.length).toBeGreaterThanOrEqual(2);
    expect(files.length).toBeLessThanOrEqual(3);
    await svc.api('PUT', '/svc/pipeline/snap2/stop');
  });
});
