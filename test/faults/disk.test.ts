/**
 * A data dir that is read-only or full, at start and while running, and a recording that fills its disk: a clear
 * error and exit code or answer, never a stack trace or a torn document, and the service keeps serving.
 * Skipped only when this machine refuses to mount a tmpfs (the reason is printed).
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { h264Body, ROOT, run, startService, waitFor } from '../helpers/service';
import { openSse } from '../helpers/sse';
import { mountRefused, tmpfs } from '../helpers/tmpfs';

if (mountRefused) console.warn(`test/faults/disk.test.ts skipped: a tmpfs cannot be mounted here (${mountRefused})`);

const encoderd = (dataDir: string) => run(process.execPath, [join(ROOT, 'bin/encoderd'), '--port', '0', '--host', '127.0.0.1', '--web-port', '0', '--data-dir', dataDir], { timeoutMs: 20000 });

describe.skipIf(Boolean(mountRefused))('disk faults', () => {
  it('a read-only or full data dir at start: one line naming the dir and the cause, exit code 73', async () => {
    const ro = tmpfs('1m', { ro: true });
    const full = tmpfs('256k');
    try {
      for (const [dir, cause] of [[join(ro.dir, 'data'), 'cannot be created: the file system is read-only (EROFS)'], [ro.dir, 'cannot be written: the file system is read-only (EROFS)']]) {
        const r = await encoderd(dir);
        expect(r.code).toBe(73);
        expect(r.stderr).toBe(`encoderd: data dir ${dir} ${cause}\n`);
      }
      full.fill();
      const r = await encoderd(full.dir);
      expect(r.code).toBe(73);
      expect(r.stderr).toMatch(new RegExp(`^encoderd: data dir ${full.dir} is full: \\d+ bytes free, encoderd needs at least 1048576\\n$`));
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      ro.unmount();
      full.unmount();
    }
  });

  it('store writes on a full data dir: 507, the stored documents whole, no temp file left; the service serves on and stores once there is room', async () => {
    const fs = tmpfs('4m');
    const svc = await startService({ dataDir: join(fs.dir, 'data') });
    try {
      expect((await svc.api('POST', '/svc/pipeline', h264Body('kept', 'udp://127.0.0.1:41100'))).status).toBe(201);
      expect((await svc.api('POST', '/svc/pipeline/kept/store', { description: 'before the disk filled' })).status).toBe(201);
      expect((await svc.api('POST', '/svc/pipeline', h264Body('late', 'udp://127.0.0.1:41101'))).status).toBe(201);
      const docs = join(svc.dataDir, 'pipelines');
      const before = readFileSync(join(docs, 'kept.json'), 'utf8');
      const filler = fs.fill();

      const store = await svc.api('POST', '/svc/pipeline/late/store', { description: 'x'.repeat(200) });
      expect(store.status).toBe(507);
      expect(store.body).toEqual({ code: 'INSUFFICIENT_STORAGE', message: 'the data dir is full (ENOSPC): pipelines/late was not stored; the stored version is unchanged' });
      const patch = await svc.api('PATCH', '/svc/pipeline/kept/store', { description: 'y'.repeat(200) });
      expect(patch.status).toBe(507);
      const hook = await svc.api('POST', '/svc/webhooks', { url: 'https://127.0.0.1:9/hook', events: ['pipeline.started'], headers: { 'X-Pad': 'z'.repeat(4096) } });
      expect(hook.body.code).toBe('INSUFFICIENT_STORAGE');
      const settings = await svc.api('PUT', '/svc/settings', { rtsp_latency_ms: 300 });
      expect(settings.body.code).toBe('INSUFFICIENT_STORAGE');
      expect((await svc.api('GET', '/svc/settings')).body.rtsp_latency_ms).not.toBe(300);
      // API keys and sessions are written too (docs/errors.md): a key or a first password that cannot be stored is refused.
      const key = await svc.api('POST', '/svc/auth/keys', { name: 'scraper' });
      expect(key.status).toBe(507);
      expect(key.body.code).toBe('INSUFFICIENT_STORAGE');
      expect((await svc.api('GET', '/svc/auth/keys')).body).toEqual([]);
      const password = await svc.api('PUT', '/svc/auth/password', { password: 'a long enough password' });
      expect(password.status).toBe(507);
      expect(password.body.code).toBe('INSUFFICIENT_STORAGE');
      expect((await svc.api('GET', '/svc/auth/status')).body).toEqual({ auth_enabled: false });
      expect(readFileSync(join(docs, 'kept.json'), 'utf8')).toBe(before);
      expect(readdirSync(docs).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      expect((await svc.api('GET', '/svc/healthz')).status).toBe(200);
      expect((await svc.api('GET', '/svc/pipeline/kept')).body).toMatchObject({ state: 'playing', description: 'before the disk filled' });

      rmSync(filler);
      expect((await svc.api('POST', '/svc/pipeline/late/store', { description: 'room again' })).status).toBe(201);
      expect(JSON.parse(readFileSync(join(docs, 'late.json'), 'utf8')).description).toBe('room again');
    } finally {
      await svc.stop();
      fs.unmount();
    }
  });

  it('a recording that fills its disk: pipeline_error naming the cause, health failing; other pipelines and the API carry on', async () => {
    const fs = tmpfs('2m');
    const svc = await startService();
    try {
      expect((await svc.api('POST', '/svc/pipeline', h264Body('other', 'udp://127.0.0.1:41102'))).status).toBe(201);
      const sse = await openSse(svc.port, '/svc/events');
      // 5 Mbit/s of noise fills 2 MiB in about 3 s.
      const rec = await svc.api('POST', '/svc/pipeline', h264Body('rec', join(fs.dir, 'rec.ts'), {
        source: { uri: 'test://snow' }, encoding: { codec: 'h264', bitrate: 5000, width: 640, height: 480, fps: 30, quality: 1 },
      }));
      expect(rec.status).toBe(201);
      const err = await sse.next((e) => e.event === 'pipeline_error' && e.data.pipeline_id === 'rec', 30000);
      expect(err.data.message).toMatch(/No space left/);
      // The recovery's restarts fill the disk again; between them a successful start clears last_error for a moment.
      await waitFor(async () => {
        const view = (await svc.api('GET', '/svc/pipeline/rec')).body;
        return view.health === 'failing' && /No space left/.test(view.last_error ?? '');
      }, 10000);
      sse.close();
      // Carrying on is playing and not failing: beside a disk being filled at 5 Mbit/s on two loaded cores, the other
      // pipeline may drop a frame now and then and be reported `degraded`, which is the truth, not a fault.
      const other = (await svc.api('GET', '/svc/pipeline/other')).body;
      expect(other.state).toBe('playing');
      expect(['ok', 'degraded']).toContain(other.health);
      expect((await svc.api('GET', '/svc/healthz')).status).toBe(200);
      await svc.api('PUT', '/svc/pipeline/rec/stop');
    } finally {
      await svc.stop();
      fs.unmount();
    }
  });
});
