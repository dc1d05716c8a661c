/** Credentials inside stored pipelines' URIs are sealed at rest and come back whole after a restart. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../core/secrets/secret-box';
import { openCredentials, sealCredentials } from '../../core/secrets/sealed-credentials';
import { startService } from '../helpers/service';

function allFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? allFiles(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('sealed credentials', () => {
  it('seals only strings with user:pass@, bound to the document', () => {
    const box = SecretBox.fromKey(Buffer.alloc(32, 7));
    const doc = { source: { uri: 'rtsp://op:s3cret@cam/live' }, output: { uri: '/tmp/x.ts' }, raw_pipeline: 'rtspsrc location="rtsp://a:b@h/x" ! fakesink' };
    const sealed = sealCredentials(doc, box, 'pipelines/a');
    expect(JSON.stringify(sealed)).not.toContain('s3cret');
    expect(JSON.stringify(sealed)).not.toContain('a:b@');
    expect(sealed.output.uri).toBe('/tmp/x.ts');
    expect(openCredentials(sealed, box, 'pipelines/a')).toEqual(doc);
    expect(() => openCredentials(sealed, box, 'pipelines/b')).toThrow();
  });

  it('a stored pipeline with an RTSP password leaves no plaintext in the data dir and returns after restart', async () => {
    const svc = await startService();
    const uri = 'rtsp://operator:TopSecretPw42@127.0.0.1:1/live';
    const body = { id: 'cam', mode: 'simple', source: { uri }, encoding: { codec: 'h264', bitrate: 500, width: 320, height: 240, fps: 30 }, output: { uri: `${svc.dataDir}/cam.mkv` } };
    // The source is not there, so the start fails (504); the pipeline is defined all the same and can be stored.
    const created = await svc.api('POST', '/svc/pipeline', body);
    expect([201, 504]).toContain(created.status);
    expect((await svc.api('POST', '/svc/pipeline/cam/store', { description: 'gate' })).status).toBe(201);
    await svc.stop();
    for (const f of allFiles(svc.dataDir)) expect(readFileSync(f).includes('TopSecretPw42'), f).toBe(false);
    const again = await startService({ dataDir: svc.dataDir });
    try {
      expect((await again.api('GET', '/svc/pipeline/cam')).body.source.uri).toBe(uri);
    } finally {
      await again.stop();
    }
  });
});
