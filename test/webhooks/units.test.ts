/** The pure parts of webhooks: the payload (golden), the event mapping, and the sealing of headers at rest. */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PipelineView } from '../../core/pipeline/model';
import { buildPayload, webhookEventOf } from '../../core/webhooks/payload';
import { SecretBox } from '../../core/secrets/secret-box';

const view = (extra: Partial<PipelineView>): PipelineView => ({
  id: 'cam-1', mode: 'simple', on_demand: false, state: 'playing', started_by: 'api', persisted: false, geolocation: null,
  klv: { available: false }, last_error: null, ...extra,
});

describe('webhook payload', () => {
  const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));

  it('started: state playing, output_url from the output', () => {
    expect(buildPayload('pipeline.started', view({ output: { uri: 'rtsp://0.0.0.0:8554/cam' } }), at)).toEqual({
      event: 'pipeline.started',
      timestamp: '2026-01-02T03:04:05.678Z',
      pipeline: { id: 'cam-1', name: 'cam-1', state: 'playing', output_url: 'rtsp://0.0.0.0:8554/cam' },
    });
  });

  it('stopped: state stopped (the view already says ready); advanced pipelines have no output: empty output_url', () => {
    expect(buildPayload('pipeline.stopped', view({ mode: 'advanced', state: 'ready', raw_pipeline: 'videotestsrc ! fakesink' }), at)).toEqual({
      event: 'pipeline.stopped',
      timestamp: '2026-01-02T03:04:05.678Z',
      pipeline: { id: 'cam-1', name: 'cam-1', state: 'stopped', output_url: '' },
    });
  });

  it('only started and stopped pipeline events become webhooks', () => {
    const p = view({});
    expect(webhookEventOf({ type: 'started', id: 'x', pipeline: p })).toBe('pipeline.started');
    expect(webhookEventOf({ type: 'stopped', id: 'x', pipeline: p })).toBe('pipeline.stopped');
    expect(webhookEventOf({ type: 'status', id: 'x', pipeline: p })).toBeNull();
    expect(webhookEventOf({ type: 'error', id: 'x', message: 'boom' })).toBeNull();
    expect(webhookEventOf({ type: 'deleted', id: 'x' })).toBeNull();
  });
});

describe('SecretBox (webhook headers at rest)', () => {
  it('round-trips, with a fresh nonce each time, and the key file is created once with mode 0600', () => {
    const dir = mkdtempSync(join(tmpdir(), 'box-'));
    const box = SecretBox.open(dir);
    const a = box.seal({ Authorization: 'Bearer abc' }, 'hook-1');
    const b = box.seal({ Authorization: 'Bearer abc' }, 'hook-1');
    expect(a.data).not.toBe(b.data);
    expect(JSON.stringify(a)).not.toContain('abc');
    const keyFile = join(dir, 'secrets/webhook-headers.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'secrets')).mode & 0o777).toBe(0o700);
    const key = readFileSync(keyFile);
    // Reopening uses the same key: what was sealed before a restart opens after it.
    expect(SecretBox.open(dir).open(a, 'hook-1')).toEqual({ Authorization: 'Bearer abc' });
    expect(readFileSync(keyFile)).toEqual(key);
  });

  it('refuses a blob moved to another webhook, altered, or opened with another key', () => {
    const box = SecretBox.fromKey(Buffer.alloc(32, 1));
    const sealed = box.seal({ 'X-Key': 'k' }, 'hook-1');
    expect(() => box.open(sealed, 'hook-2')).toThrow();
    const data = Buffer.from(sealed.data, 'base64');
    data[0] ^= 1;
    expect(() => box.open({ ...sealed, data: data.toString('base64') }, 'hook-1')).toThrow();
    expect(() => SecretBox.fromKey(Buffer.alloc(32, 2)).open(sealed, 'hook-1')).toThrow();
    expect(() => SecretBox.fromKey(Buffer.alloc(16))).toThrow(/exactly 32 bytes/);
  });
});
