// Framegrabs on a real pipeline (videotestsrc → x264 → UDP) through the real service over HTTPS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, h264Body, sleep, startService, waitFor, type RunningService } from '../helpers/service';

/** Width and height from a JPEG's first SOFn marker. */
function jpegSize(buf: Buffer): { width: number; height: number } | null {
  for (let i = 2; i + 9 < buf.length;) {
    if (buf[i] !== 0xff) return null;
    const marker = buf[i + 1];
    const len = buf.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xc3) return { height: buf.readUInt16BE(i + 5), width: buf.readUInt16BE(i + 7) };
    i += 2 + len;
  }
  return null;
}

async function getBinary(svc: RunningService, path: string): Promise<{ status: number; type?: string; body: Buffer }> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: svc.port, path, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

describe('framegrabs', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService();
    const r = await svc.api('POST', '/svc/pipeline', h264Body('fg1', `udp://127.0.0.1:${await freePort()}`));
    expect(r.status).toBe(201);
  }, 30000);
  afterAll(async () => {
    await svc?.stop();
  });

  it('validates the start body and needs an existing pipeline', async () => {
    expect((await svc.api('PUT', '/svc/pipeline/fg1/framegrab/start', { interval_seconds: 0 })).status).toBe(400);
    expect((await svc.api('PUT', '/svc/pipeline/fg1/framegrab/start', { quality: 101 })).status).toBe(400);
    expect((await svc.api('PUT', '/svc/pipeline/fg1/framegrab/start', { interval_seconds: 'x' })).body.code).toBe('VALIDATION_ERROR');
    expect((await svc.api('PUT', '/svc/pipeline/nope/framegrab/start', { interval_seconds: 1 })).status).toBe(404);
  });

  it('writes JPEG files at the interval, serves and deletes them', async () => {
    const start = await svc.api('PUT', '/svc/pipeline/fg1/framegrab/start', { interval_seconds: 1, quality: 60 });
    expect(start.status).toBe(200);
    expect(start.body.framegrab).toEqual({ state: 'running', interval_seconds: 1, quality: 60 });
    const t0 = Date.now();
    const files = await waitFor(async () => {
      const l = await svc.api('GET', '/svc/files/framegrabs');
      return l.body.length >= 4 ? l.body : null;
    }, 15000, 200);
    // 4 files at 1 s take about 3 s after the first.
    expect(Date.now() - t0).toBeGreaterThan(2500);
    const rec = files[0];
    expect(rec).toMatchObject({ pipeline_id: 'fg1', url: `/svc/files/framegrabs/${rec.file}` });
    expect(rec.file).toMatch(/^fg1-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.jpg$/);
    const times = files.slice(0, 4).map((f: { created_at: string }) => Date.parse(f.created_at)).reverse();
    // One grab a second: over the three gaps at least 2 s in all (a grab the loaded machine wrote late shortens the
    // gap after it, so no single gap is held to the second), and never two grabs for one tick.
    expect(times[3] - times[0]).toBeGreaterThan(2000);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThan(300);
    const got = await getBinary(svc, rec.url);
    expect(got.status).toBe(200);
    expect(got.type).toBe('image/jpeg');
    expect(got.body.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    expect(got.body.length).toBe(rec.size);
    expect(jpegSize(got.body)).toEqual({ width: 320, height: 240 });

    expect((await svc.api('DELETE', rec.url)).status).toBe(204);
    expect((await getBinary(svc, rec.url)).status).toBe(404);
    expect((await svc.api('DELETE', rec.url)).body.code).toBe('NOT_FOUND');
    for (const bad of ['..%2F..%2Fsettings%2Fcurrent.json', '%2Fetc%2Fpasswd', 'fg1', 'fg1%2F' + rec.file]) {
      expect((await getBinary(svc, `/svc/files/framegrabs/${bad}`)).status).toBe(404);
    }
  }, 30000);

  it('keeps the wanted state across stop and play, and stops on request', async () => {
    expect((await svc.api('PUT', '/svc/pipeline/fg1/stop')).body.framegrab.state).toBe('running');
    const before = (await svc.api('GET', '/svc/files/framegrabs?pipeline_id=fg1')).body.length;
    await sleep(1500);
    expect((await svc.api('GET', '/svc/files/framegrabs?pipeline_id=fg1')).body.length).toBe(before);
    expect((await svc.api('PUT', '/svc/pipeline/fg1/play')).status).toBe(200);
    await waitFor(async () => (await svc.api('GET', '/svc/files/framegrabs?pipeline_id=fg1')).body.length > before, 8000, 200);
    const stopped = await svc.api('PUT', '/svc/pipeline/fg1/framegrab/stop');
    expect(stopped.body.framegrab).toEqual({ state: 'stopped' });
    await sleep(300);
    const n = (await svc.api('GET', '/svc/files/framegrabs')).body.length;
    await sleep(2000);
    expect((await svc.api('GET', '/svc/files/framegrabs')).body.length).toBe(n);
  }, 30000);

  it('keeps at most framegrab_retention files per pipeline', async () => {
    expect((await svc.api('PUT', '/svc/settings', { framegrab_retention: 3 })).status).toBe(200);
    expect((await svc.api('GET', '/svc/files/framegrabs?pipeline_id=fg1')).body.length).toBeLessThanOrEqual(3);
    await svc.api('PUT', '/svc/pipeline/fg1/framegrab/start', { interval_seconds: 1 });
    await sleep(5000);
    const l = (await svc.api('GET', '/svc/files/framegrabs?pipeline_id=fg1')).body;
    expect(l.length).toBe(3);
    // the newest are kept
    expect(Date.now() - Date.parse(l[0].created_at)).toBeLessThan(2500);
    await svc.api('PUT', '/svc/pipeline/fg1/framegrab/stop');
  }, 30000);

  it('DELETE ?pipeline_id removes them all', async () => {
    const r = await svc.api('DELETE', '/svc/files/framegrabs?pipeline_id=fg1');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ pipeline_id: 'fg1', deleted: 3 });
    expect((await svc.api('GET', '/svc/files/framegrabs')).body).toEqual([]);
  });
});

// A service of its own: the limits count per client and minute, so what the tests above deleted would change the
// count (and this test would depend on their order and outcome).
describe('framegrab deletes are rate-limited', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService();
  }, 30000);
  afterAll(async () => {
    await svc?.stop();
  });

  it('60 file deletes and 10 whole-pipeline deletes a minute, then 429 with Retry-After', async () => {
    for (let i = 0; i < 60; i++) expect((await svc.api('DELETE', `/svc/files/framegrabs/fg1-2020-01-01T00-00-00.000Z-${i}.jpg`)).status).toBe(404);
    const one = await svc.api('DELETE', '/svc/files/framegrabs/fg1-2020-01-01T00-00-00.000Z.jpg');
    expect(one.status).toBe(429);
    expect(one.body).toMatchObject({ code: 'RATE_LIMITED' });
    expect(one.body.retry_after_seconds).toBeGreaterThan(0);
    expect(Number(one.headers['retry-after'])).toBe(one.body.retry_after_seconds);
    // The whole-pipeline delete counts on its own.
    for (let i = 0; i < 10; i++) expect((await svc.api('DELETE', '/svc/files/framegrabs?pipeline_id=fg1')).status).toBe(200);
    const all = await svc.api('DELETE', '/svc/files/framegrabs?pipeline_id=fg1');
    expect(all.status).toBe(429);
    expect(all.headers['retry-after']).toBeDefined();
  }, 30000);
});
