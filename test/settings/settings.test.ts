/**
 * GET/PUT /svc/settings on the real service: validation, merge semantics, atomic persistence across a
 * restart, and the log level applied without a restart (observed in the service's own output).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, startService, waitFor, type RunningService } from '../helpers/service';

const DEFAULTS = { device_name: 'encoderd', framegrab_retention: 100, rtsp_latency_ms: 200, log_level: 'info', explorer_enabled: false };

describe('settings', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('GET answers every field with its default on a fresh data dir', async () => {
    const r = await svc.api('GET', '/svc/settings');
    expect(r.status).toBe(200);
    expect(r.body).toEqual(DEFAULTS);
  });

  it('PUT changes the fields it names, keeps the others, and answers the whole record', async () => {
    const r = await svc.api('PUT', '/svc/settings', { device_name: 'Mast camera 2', rtsp_latency_ms: 350 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...DEFAULTS, device_name: 'Mast camera 2', rtsp_latency_ms: 350 });
    const r2 = await svc.api('PUT', '/svc/settings', { framegrab_retention: 20, explorer_enabled: true });
    expect(r2.body).toEqual({ ...DEFAULTS, device_name: 'Mast camera 2', rtsp_latency_ms: 350, framegrab_retention: 20, explorer_enabled: true });
    expect((await svc.api('GET', '/svc/settings')).body).toEqual(r2.body);
  });

  it('refuses unknown fields, wrong types, out-of-range values and empty bodies with 400 naming each field, changing nothing', async () => {
    const before = (await svc.api('GET', '/svc/settings')).body;
    const cases: Array<[unknown, string[]]> = [
      [{ device_name: 'x', colour: 'blue' }, ['colour is not a supported field']],
      [{ framegrab_retention: 2.5 }, ['framegrab_retention must be an integer']],
      [{ framegrab_retention: 0 }, ['framegrab_retention must be between 1 and 10000']],
      [{ rtsp_latency_ms: -1, explorer_enabled: 'yes' }, ['rtsp_latency_ms must be between 0 and 10000', 'explorer_enabled must be a boolean']],
      [{ log_level: 'verbose' }, ['log_level must be one of fatal, error, warn, info, debug, trace, silent']],
      [{ device_name: '' }, ['device_name must not be empty']],
      [{ device_name: 'a\nb' }, ['device_name must not contain control characters']],
      [{ device_name: 'x'.repeat(65) }, ['device_name must be at most 64 characters']],
      [{}, ['body must not be empty']],
      [[1], ['body must be an object']],
    ];
    for (const [body, errors] of cases) {
      const r = await svc.api('PUT', '/svc/settings', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe('VALIDATION_ERROR');
      expect(r.body.details.errors).toEqual(errors);
    }
    expect((await svc.api('PUT', '/svc/settings')).status).toBe(400);
    expect((await svc.api('GET', '/svc/settings')).body).toEqual(before);
  });

  it('applies log_level at once: info lines stop at warn and come back at info', async () => {
    const count = () => svc.logs().split('\n').filter((l) => l.includes('"msg":"settings changed"')).length;
    const base = count();
    await svc.api('PUT', '/svc/settings', { device_name: 'one' });
    await waitFor(() => count() === base + 1);
    const atInfo = count();

    await svc.api('PUT', '/svc/settings', { log_level: 'warn' });
    await svc.api('PUT', '/svc/settings', { device_name: 'two' });
    await sleep(300);
    // The change to warn is the last info line; the rename after it is not logged.
    expect(count()).toBe(atInfo + 1);

    await svc.api('PUT', '/svc/settings', { log_level: 'info' });
    await svc.api('PUT', '/svc/settings', { device_name: 'three' });
    await waitFor(() => count() === atInfo + 2);
  });

  it('persists atomically in the data dir and survives a restart, the stored log level in force from the start', async () => {
    await svc.api('PUT', '/svc/settings', { device_name: 'Persisted', log_level: 'warn', rtsp_latency_ms: 800 });
    const dir = join(svc.dataDir, 'settings');
    expect(readdirSync(dir)).toEqual(['current.json']);
    expect(JSON.parse(readFileSync(join(dir, 'current.json'), 'utf8'))).toMatchObject({ device_name: 'Persisted', log_level: 'warn' });
    const expected = (await svc.api('GET', '/svc/settings')).body;
    expect(await svc.stop()).toBe(0);

    // Started with --log-level info, but the stored setting (warn) wins: the info line "encoderd ready" is absent.
    svc = await startService({ dataDir: svc.dataDir });
    expect((await svc.api('GET', '/svc/settings')).body).toEqual(expected);
    await sleep(300);
    expect(svc.logs()).not.toContain('"msg":"encoderd ready"');
    await svc.api('PUT', '/svc/settings', { log_level: 'info' });
    await svc.api('PUT', '/svc/settings', { device_name: 'After restart' });
    await waitFor(() => svc.logs().includes('"changed":["device_name"]'));
  });
});
