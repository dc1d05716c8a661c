/**
 * The walking skeleton's promise: a test-source H.264 pipeline POSTed to a file plays and stops, and leaves a
 * file that gst-discoverer-1.0 reads as H.264 at the requested size — for each container.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { h264Body, run, sleep, startService, type RunningService } from '../helpers/service';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

async function discover(path: string) {
  const r = await run('gst-discoverer-1.0', ['-v', path], { timeoutMs: 20000 });
  return r.stdout;
}

describe('file output', () => {
  for (const ext of ['mp4', 'mkv', 'ts']) {
    it(`records H.264 into .${ext} that decodes at the requested size`, async () => {
      const path = `${svc.dataDir}/rec-${ext}.${ext}`;
      const created = await svc.api('POST', '/svc/pipeline', h264Body(`rec-${ext}`, path, {
        encoding: { codec: 'h264', bitrate: 600, width: 352, height: 288, fps: 25 },
      }));
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ id: `rec-${ext}`, state: 'playing', started_by: 'api', persisted: false });
      await sleep(2000);
      const stopped = await svc.api('PUT', `/svc/pipeline/rec-${ext}/stop`);
      expect(stopped.status).toBe(200);
      expect(stopped.body.state).toBe('ready');
      const info = await discover(path);
      expect(info).toMatch(/video\/x-h264/);
      expect(info).toMatch(/width=\(int\)352/);
      expect(info).toMatch(/height=\(int\)288/);
      // A finalised recording holds about what was recorded (ffprobe reads TS durations that discoverer does not).
      const probe = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration:stream=codec_name,width,height', '-of', 'json', path]);
      const parsed = JSON.parse(probe.stdout) as { format: { duration: string }; streams: Array<{ codec_name: string; width: number }> };
      expect(parsed.streams[0]).toMatchObject({ codec_name: 'h264', width: 352 });
      expect(Number(parsed.format.duration)).toBeGreaterThan(1);
      expect((await svc.api('DELETE', `/svc/pipeline/rec-${ext}`)).status).toBe(204);
    });
  }

  it('plays again after a stop, and lists, gets and reports status', async () => {
    const path = `${svc.dataDir}/again.mkv`;
    expect((await svc.api('POST', '/svc/pipeline', h264Body('again', path, { on_demand: false }))).status).toBe(201);
    expect((await svc.api('PUT', '/svc/pipeline/again/stop')).body.state).toBe('ready');
    const played = await svc.api('PUT', '/svc/pipeline/again/play');
    expect(played.status).toBe(200);
    expect(played.body).toMatchObject({ state: 'playing', started_by: 'api' });
    const list = await svc.api('GET', '/svc/pipeline');
    expect(list.body.map((p: { id: string }) => p.id)).toContain('again');
    expect((await svc.api('GET', '/svc/pipeline/again')).body.state).toBe('playing');
    expect((await svc.api('GET', '/svc/pipeline/again/status')).body).toMatchObject({ id: 'again', state: 'playing' });
    const del = await svc.api('DELETE', '/svc/pipeline/again');
    expect(del.status).toBe(409);
    expect(del.body.code).toBe('CONFLICT');
    await svc.api('PUT', '/svc/pipeline/again/stop');
    expect((await svc.api('DELETE', '/svc/pipeline/again')).status).toBe(204);
    expect((await svc.api('GET', '/svc/pipeline/again')).status).toBe(404);
  });
});
