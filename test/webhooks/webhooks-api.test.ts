/**
 * /svc/webhooks on the real service over HTTPS: create, list, delete, the spec's limits, write-only headers
 * (never in a response, in the store, or in the logs) and persistence across a restart.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service';

const SECRET = 'Bearer s3cr3t-VALUE-that-must-never-leak-4f9a';

describe('webhook subscribers', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const clear = async () => {
    for (const w of (await svc.api('GET', '/svc/webhooks')).body) await svc.api('DELETE', `/svc/webhooks/${w.id}`);
  };

  it('POST answers 201 {id, url, events, created_at} and never the headers; GET lists the same', async () => {
    const before = Date.now();
    const r = await svc.api('POST', '/svc/webhooks', {
      url: 'https://hooks.example.net/encoder?site=7', events: ['pipeline.started', 'pipeline.stopped'], headers: { Authorization: SECRET, 'X-Site': '7' },
    });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['created_at', 'events', 'id', 'url']);
    expect(r.body).toMatchObject({ url: 'https://hooks.example.net/encoder?site=7', events: ['pipeline.started', 'pipeline.stopped'] });
    expect(r.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(r.body.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(r.text).not.toContain('s3cr3t');

    const list = await svc.api('GET', '/svc/webhooks');
    expect(list.status).toBe(200);
    expect(list.body).toEqual([r.body]);
    expect(list.text).not.toContain('s3cr3t');
    expect(list.text).not.toContain('X-Site');
  });

  it('DELETE answers 204, then 404 NOT_FOUND for the same id', async () => {
    const { body } = await svc.api('POST', '/svc/webhooks', { url: 'http://127.0.0.1:1/gone', events: ['pipeline.stopped'] });
    const del = await svc.api('DELETE', `/svc/webhooks/${body.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const again = await svc.api('DELETE', `/svc/webhooks/${body.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: `webhook "${body.id}" not found`, code: 'NOT_FOUND' });
    expect((await svc.api('GET', '/svc/webhooks')).body.map((w: { id: string }) => w.id)).not.toContain(body.id);
  });

  it('400 VALIDATION_ERROR with details.errors naming each field, for every limit of the spec', async () => {
    const url = 'http://127.0.0.1:8080/hook';
    const headers11 = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-H${i}`, 'v']));
    const cases: Array<[unknown, string[]]> = [
      [{ events: ['pipeline.started'] }, ['url is required']],
      [{ url }, ['events is required']],
      [{ url: `http://a.example/${'x'.repeat(2049 - 'http://a.example/'.length)}`, events: ['pipeline.started'] }, ['url must be at most 2048 characters']],
      [{ url: 'ftp://files.example/x', events: ['pipeline.started'] }, ['url must use http or https']],
      [{ url: 'not a url', events: ['pipeline.started'] }, ['url must be an absolute http or https URL']],
      [{ url: 'https://user:pw@hooks.example/x', events: ['pipeline.started'] }, ['url must not contain credentials (send them in headers, which are never returned)']],
      [{ url, events: [] }, ['events must have at least 1 item']],
      [{ url, events: ['pipeline.deleted'] }, ['events[0] must be one of pipeline.started, pipeline.stopped']],
      [{ url, events: ['pipeline.started', 'pipeline.started'] }, ['events must not repeat items']],
      [{ url, events: 'pipeline.started' }, ['events must be an array']],
      [{ url, events: ['pipeline.started'], headers: headers11 }, ['headers must have at most 10 entries']],
      [{ url, events: ['pipeline.started'], headers: { ['K'.repeat(129)]: 'v' } }, [`headers key "${'K'.repeat(32)}…" must be at most 128 characters`]],
      [{ url, events: ['pipeline.started'], headers: { 'X-Big': 'v'.repeat(4097) } }, ['headers.X-Big must be at most 4096 characters']],
      [{ url, events: ['pipeline.started'], headers: { 'X-Num': 5 } }, ['headers.X-Num must be a string']],
      [{ url, events: ['pipeline.started'], headers: { 'X-Split': 'a\r\nInjected: 1' } }, ['headers.X-Split must be visible text without line breaks']],
      [{ url, events: ['pipeline.started'], headers: { 'Bad Name': 'v' } }, ['headers key "Bad Name" is not a valid HTTP header name']],
      [{ url, events: ['pipeline.started'], headers: { 'Content-Length': '1' } }, ['headers.Content-Length is set by the service and cannot be overridden']],
      [{ url, events: ['pipeline.started'], extra: true }, ['extra is not a supported field']],
      [[], ['body must be an object']],
    ];
    for (const [body, errors] of cases) {
      const r = await svc.api('POST', '/svc/webhooks', body);
      expect(r.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect(r.body.code).toBe('VALIDATION_ERROR');
      expect(r.body.details.errors).toEqual(errors);
    }
  });

  it('exactly at the limits is accepted: 2048-character url, 10 headers, 128-character key, 4096-character value', async () => {
    await clear();
    const url = `http://a.example/${'x'.repeat(2048 - 'http://a.example/'.length)}`;
    const headers = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`X-H${i}`, 'v']));
    headers['K'.repeat(128)] = 'v'.repeat(4096);
    const r = await svc.api('POST', '/svc/webhooks', { url, events: ['pipeline.stopped'], headers });
    expect(r.status).toBe(201);
    expect(r.body.url).toHaveLength(2048);
    await clear();
  });

  it('the 51st webhook answers 400 WEBHOOK_LIMIT_REACHED; deleting one makes room again', async () => {
    await clear();
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const r = await svc.api('POST', '/svc/webhooks', { url: `http://127.0.0.1:9${String(i).padStart(3, '0')}/h`, events: ['pipeline.started'] });
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    const over = await svc.api('POST', '/svc/webhooks', { url: 'http://127.0.0.1:9999/h', events: ['pipeline.started'] });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ message: '50 webhooks are already registered; delete one first', code: 'WEBHOOK_LIMIT_REACHED' });
    expect((await svc.api('GET', '/svc/webhooks')).body).toHaveLength(50);

    expect((await svc.api('DELETE', `/svc/webhooks/${ids[0]}`)).status).toBe(204);
    expect((await svc.api('POST', '/svc/webhooks', { url: 'http://127.0.0.1:9999/h', events: ['pipeline.started'] })).status).toBe(201);
    await clear();
  });

  it('persists across a restart, headers sealed at rest (0600 files in 0700 directories) and absent from the logs', async () => {
    await clear();
    const a = (await svc.api('POST', '/svc/webhooks', { url: 'http://127.0.0.1:8081/a', events: ['pipeline.started'], headers: { Authorization: SECRET } })).body;
    const b = (await svc.api('POST', '/svc/webhooks', { url: 'http://127.0.0.1:8081/b', events: ['pipeline.stopped'] })).body;

    const dir = join(svc.dataDir, 'webhooks');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir);
    expect(files.sort()).toEqual([`${a.id}.json`, `${b.id}.json`].sort());
    for (const f of files) {
      expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
      const text = readFileSync(join(dir, f), 'utf8');
      expect(text).not.toContain('s3cr3t');
      expect(text).not.toContain('Authorization');
    }
    expect(statSync(join(svc.dataDir, 'secrets/webhook-headers.key')).mode & 0o777).toBe(0o600);

    expect(await svc.stop()).toBe(0);
    svc = await startService({ dataDir: svc.dataDir });
    expect((await svc.api('GET', '/svc/webhooks')).body).toEqual([a, b]);
    expect(svc.logs()).not.toContain('s3cr3t');
  });
});
