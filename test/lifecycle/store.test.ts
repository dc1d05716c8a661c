/** Storage: store operations and their errors, restore after a restart with auto_start, atomic documents. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { h264Body, ROOT, sleep, startService } from '../helpers/service';

describe('store operations', () => {
  it('store, patch, unstore, with the spec errors, and restore after a restart', async () => {
    const svc = await startService();
    try {
      expect((await svc.api('POST', '/svc/pipeline/ghost/store', {})).body.code).toBe('PIPELINE_NOT_FOUND');
      expect((await svc.api('PATCH', '/svc/pipeline/ghost/store', {})).status).toBe(404);
      expect((await svc.api('DELETE', '/svc/pipeline/ghost/store')).body.code).toBe('PIPELINE_NOT_FOUND');

      expect((await svc.api('POST', '/svc/pipeline', h264Body('keep', `${svc.dataDir}/keep.mkv`))).status).toBe(201);
      expect((await svc.api('POST', '/svc/pipeline', h264Body('plain', `${svc.dataDir}/plain.mkv`))).status).toBe(201);
      expect((await svc.api('POST', '/svc/pipeline', h264Body('quiet', `${svc.dataDir}/quiet.mkv`))).status).toBe(201);
      expect((await svc.api('PATCH', '/svc/pipeline/keep/store', { auto_start: true })).body.code).toBe('PIPELINE_NOT_PERSISTED');
      expect((await svc.api('DELETE', '/svc/pipeline/keep/store')).body.code).toBe('PIPELINE_NOT_PERSISTED');
      expect((await svc.api('POST', '/svc/pipeline/keep/store', { auto_start: 'yes' })).status).toBe(400);

      const stored = await svc.api('POST', '/svc/pipeline/keep/store', { auto_start: false, description: 'lobby camera' });
      expect(stored.status).toBe(201);
      expect(stored.body).toMatchObject({ id: 'keep', persisted: true, auto_start: false, description: 'lobby camera' });
      expect((await svc.api('GET', '/svc/pipeline/keep')).body.persisted).toBe(true);
      const patched = await svc.api('PATCH', '/svc/pipeline/keep/store', { auto_start: true, encoding: { bitrate: 700 } });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ auto_start: true, description: 'lobby camera' });
      expect((await svc.api('POST', '/svc/pipeline/quiet/store', { description: 'not started' })).status).toBe(201);
      expect((await svc.api('POST', '/svc/pipeline/plain/store', {})).status).toBe(201);
      const unstored = await svc.api('DELETE', '/svc/pipeline/plain/store');
      expect(unstored.status).toBe(200);
      expect(unstored.body.persisted).toBe(false);
      // Removing from storage leaves the active pipeline alone.
      expect((await svc.api('GET', '/svc/pipeline/plain')).body.state).toBe('playing');

      expect(await svc.stop()).toBe(0);
      const again = await startService({ dataDir: svc.dataDir });
      try {
        const list = await again.api('GET', '/svc/pipeline');
        expect(list.body.map((p: { id: string }) => p.id).sort()).toEqual(['keep', 'quiet']);
        const keep = await again.api('GET', '/svc/pipeline/keep');
        expect(keep.body).toMatchObject({ state: 'playing', started_by: 'auto_start', persisted: true, encoding: { bitrate: 700 } });
        expect((await again.api('GET', '/svc/pipeline/quiet')).body).toMatchObject({ state: 'ready', persisted: true, description: 'not started' });
        await again.api('PUT', '/svc/pipeline/keep/stop');
        expect((await again.api('DELETE', '/svc/pipeline/quiet')).status).toBe(204);
        expect((await again.api('DELETE', '/svc/pipeline/keep?delete_persisted=true')).status).toBe(204);
      } finally {
        await again.stop();
      }
      const third = await startService({ dataDir: svc.dataDir });
      try {
        // quiet was deleted without delete_persisted: it comes back; keep was removed from storage too.
        expect((await third.api('GET', '/svc/pipeline')).body.map((p: { id: string }) => p.id)).toEqual(['quiet']);
      } finally {
        await third.stop();
      }
    } finally {
      await svc.stop();
    }
  });
});

describe('atomic store', () => {
  it('a writer killed in the middle of writes leaves every document whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-kill-'));
    const writer = join(ROOT, 'test/fixtures/store-writer.js');
    for (let round = 0; round < 5; round++) {
      const child = spawn(process.execPath, [writer, dir], { stdio: ['ignore', 'pipe', 'ignore'] });
      // From its first document on (a loaded machine can take longer than the kill's old 150–400 ms delay to start
      // Node), then at a random moment of its writes.
      await new Promise((r) => child.stdout!.once('data', r));
      await sleep(Math.random() * 250);
      child.kill('SIGKILL');
      await new Promise((r) => child.on('exit', r));
    }
    const files = readdirSync(join(dir, 'docs')).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const doc = JSON.parse(readFileSync(join(dir, 'docs', f), 'utf8')) as { n: number; pad: string; check: number };
      // The writer makes each document self-checking: a torn one cannot pass.
      expect(doc.check).toBe(doc.n * 7 + doc.pad.length);
    }
  });
});
