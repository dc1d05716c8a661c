/**
 * API keys end to end over real HTTPS against the compiled service: management while auth is off, creation
 * with a session, use on a GET and an SSE stream, a listing that never shows a key, what a key may not do,
 * validation, the cap, revocation, survival across a restart and a password removal, digest-only storage,
 * logs without keys, and the routes in the generated OpenAPI document. First, with a controlled clock: how often
 * last use reaches the store, and the logger's redaction of keys.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeys, LAST_USED_WRITE_INTERVAL_MS, MAX_API_KEYS } from '../../core/auth/api-keys';
import { createLogger } from '../../core/log/logger';
import { JsonStore } from '../../core/store/json-store';
import { openSse } from '../helpers/sse';
import { freePort, startService, waitFor, type RunningService } from '../helpers/service';
import { call } from '../web/client';

const PASSWORD = 'api keys need a password';
const KEY_FORM = /^edk_[A-Za-z0-9_-]{43}$/;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('ApiKeys', () => {
  it('write last use to the store on the first use, then only when the stored copy is 10 minutes stale', () => {
    const store = new JsonStore(mkdtempSync(join(tmpdir(), 'encoderd-api-keys-unit-')));
    let writes = 0;
    const write = store.write.bind(store);
    store.write = (collection, name, value) => { writes++; write(collection, name, value); };
    let now = Date.parse('2026-01-01T00:00:00Z');
    const keys = new ApiKeys(store, () => now);
    const { id, key } = keys.create('scraper');
    expect(writes).toBe(1);
    expect(keys.check(key)).toBe(id);
    expect(writes).toBe(2);
    now += LAST_USED_WRITE_INTERVAL_MS - 1;
    expect(keys.check(key)).toBe(id);
    expect(writes).toBe(2);
    // Exact in memory, coarse on disk.
    expect(keys.list()[0].last_used_at).toBe(new Date(now).toISOString());
    expect(new ApiKeys(store).list()[0].last_used_at).toBe('2026-01-01T00:00:00.000Z');
    now += 1;
    expect(keys.check(key)).toBe(id);
    expect(writes).toBe(3);
    expect(new ApiKeys(store).list()[0].last_used_at).toBe(new Date(now).toISOString());
    // Unknown and malformed keys cost no write.
    for (const t of [undefined, '', key.slice(0, -1), `${key.slice(0, -1)}!`, key.slice(4)]) expect(keys.check(t)).toBeNull();
    expect(writes).toBe(3);
  });

  it('never reach a log line, in any field or string', () => {
    const lines: string[] = [];
    const log = createLogger('info', new Writable({ write(chunk, _enc, cb) { lines.push(String(chunk)); cb(); } }));
    const key = `edk_${'k3Y-_'.repeat(8)}abc`;
    log.info({ key, nested: { value: `x${key}y` }, list: [key] }, `using ${key}`);
    log.warn(`GET /svc/x?key=${key} Authorization: Bearer ${key}`);
    log.error({ err: new Error(`refused ${key}`) }, 'failed');
    const out = lines.join('');
    expect(out).not.toContain(key.slice(4));
    expect(out).toContain('edk_[redacted]');
  });
});

describe('API keys over HTTPS', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'encoderd-api-keys-'));
  let explorerPort: number;
  let svc: RunningService;
  let session: string;
  let early: { id: string; key: string };
  let scraper: { id: string; key: string };
  const logs: string[] = [];

  beforeAll(async () => {
    explorerPort = await freePort();
    svc = await startService({ dataDir, args: ['--explorer-port', String(explorerPort)] });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('are in the OpenAPI document: the create body from its schema, the listing without the key', async () => {
    expect((await svc.api('PUT', '/svc/settings', { explorer_enabled: true })).status).toBe(200);
    const doc = (await waitFor(async () => {
      const r = await call(explorerPort, 'GET', '/openapi.json', { plain: true });
      return r.status === 200 ? r : undefined;
    }, 5000)).body;
    const keys = doc.paths['/svc/auth/keys'];
    const create = keys.post.requestBody.content['application/json'].schema;
    expect(create.required).toEqual(['name']);
    expect(create.additionalProperties).toBe(false);
    expect(create.properties.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 64 });
    expect(Object.keys(keys.post.responses['201'].content['application/json'].schema.properties).sort()).toEqual(['created_at', 'id', 'key', 'name']);
    const item = keys.get.responses['200'].content['application/json'].schema.items;
    expect(Object.keys(item.properties).sort()).toEqual(['created_at', 'id', 'last_used_at', 'name']);
    const revoke = doc.paths['/svc/auth/keys/{id}'].delete;
    expect(revoke.parameters.filter((p: any) => p.in === 'path').map((p: any) => p.name)).toEqual(['id']);
    expect(revoke.security).toBeUndefined();
  });

  it('can be managed while auth is off, like every endpoint', async () => {
    const r = await svc.api('POST', '/svc/auth/keys', { name: 'made before the password' });
    expect(r.status).toBe(201);
    expect(r.body.key).toMatch(KEY_FORM);
    early = { id: r.body.id, key: r.body.key };
    expect((await svc.api('GET', '/svc/auth/keys')).body.map((k: any) => k.id)).toEqual([early.id]);
    // A key (even a wrong one) changes nothing while everything is open.
    expect((await svc.api('GET', '/svc/pipeline', undefined, { token: `edk_${'A'.repeat(43)}` })).status).toBe(200);
  });

  it('are created with a session: 201 {id, name, key, created_at}, never cached; the listing never shows the key', async () => {
    expect((await svc.api('PUT', '/svc/auth/password', { password: PASSWORD })).status).toBe(200);
    session = (await svc.api('POST', '/svc/auth/login', { password: PASSWORD })).body.token;
    const r = await svc.api('POST', '/svc/auth/keys', { name: 'prometheus' }, { token: session });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['created_at', 'id', 'key', 'name']);
    expect(r.body.name).toBe('prometheus');
    expect(r.body.key).toMatch(KEY_FORM);
    expect(Date.parse(r.body.created_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(r.headers['cache-control']).toBe('no-store');
    scraper = { id: r.body.id, key: r.body.key };

    const list = await svc.api('GET', '/svc/auth/keys', undefined, { token: session });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      { id: early.id, name: 'made before the password', created_at: expect.any(String), last_used_at: null },
      { id: scraper.id, name: 'prometheus', created_at: r.body.created_at, last_used_at: null },
    ]);
    expect(list.text).not.toContain(scraper.key);
    expect(list.text).not.toContain(early.key);
  });

  it('open every non-public endpoint, SSE streams included; a key made while auth was off works too', async () => {
    const pipelines = await svc.api('GET', '/svc/pipeline', undefined, { token: scraper.key });
    expect(pipelines.status).toBe(200);
    expect((await svc.api('GET', '/svc/settings', undefined, { token: early.key })).status).toBe(200);
    const sse = await openSse(svc.port, '/svc/pipeline/nope/status/events', { authorization: `Bearer ${scraper.key}` });
    try {
      expect((await sse.next((e) => e.event === 'pipeline_not_found')).data).toEqual({ pipeline_id: 'nope' });
    } finally {
      sse.close();
    }
    // The same stream without a key, or with a key that was never issued, is refused.
    await expect(openSse(svc.port, '/svc/pipeline/nope/status/events')).rejects.toThrow(/401/);
    const altered = scraper.key.slice(0, -1) + (scraper.key.endsWith('A') ? 'B' : 'A');
    for (const token of [altered, `edk_${'A'.repeat(43)}`, scraper.key.slice(4), `${scraper.key}x`]) {
      const r = await svc.api('GET', '/svc/pipeline', undefined, { token });
      expect(r.status, token).toBe(401);
      expect(r.body).toEqual({ error: 'Unauthorized' });
    }
    // Listing with a key is allowed (no secret in it); last use is recorded.
    const list = await svc.api('GET', '/svc/auth/keys', undefined, { token: scraper.key });
    expect(list.status).toBe(200);
    const used = list.body.find((k: any) => k.id === scraper.id);
    expect(Date.parse(used.last_used_at)).toBeGreaterThanOrEqual(Date.parse(used.created_at));
  });

  it('cannot create or revoke keys, nor change or remove the password: 401 saying a session is needed', async () => {
    const attempts: Array<[string, string, unknown]> = [
      ['POST', '/svc/auth/keys', { name: 'minted by a key' }],
      ['DELETE', `/svc/auth/keys/${early.id}`, undefined],
      ['DELETE', `/svc/auth/keys/${scraper.id}`, undefined],
      ['PUT', '/svc/auth/password', { password: 'taken over by a key' }],
      ['DELETE', '/svc/auth/password', undefined],
    ];
    for (const [method, path, body] of attempts) {
      const r = await svc.api(method, path, body, { token: scraper.key });
      expect(r.status, `${method} ${path}`).toBe(401);
      expect(r.body).toEqual({ error: 'Unauthorized' });
      expect(r.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token", error_description="an API key cannot do this/);
    }
    // Nothing changed: both keys exist, the password is the same one, auth is still on.
    expect((await svc.api('GET', '/svc/auth/keys', undefined, { token: session })).body.map((k: any) => k.id)).toEqual([early.id, scraper.id]);
    expect((await svc.api('GET', '/svc/auth/status')).body).toEqual({ auth_enabled: true });
    expect((await svc.api('POST', '/svc/auth/login', { password: PASSWORD })).status).toBe(200);
  });

  it('refuse a bad name or body with 400 VALIDATION_ERROR naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'name is required'],
      [{ name: '' }, 'name must not be empty'],
      [{ name: 'x'.repeat(65) }, 'name must be at most 64 characters'],
      [{ name: 42 }, 'name must be a string'],
      [{ name: 'line\nbreak' }, 'name may hold only letters, digits, ".", "_", "-" and single spaces between words'],
      [{ name: ' padded' }, 'name may hold only letters, digits, ".", "_", "-" and single spaces between words'],
      [{ name: 'two  spaces' }, 'name may hold only letters, digits, ".", "_", "-" and single spaces between words'],
      [{ name: '<script>' }, 'name may hold only letters, digits, ".", "_", "-" and single spaces between words'],
      [{ name: 'ok', scope: 'admin' }, 'scope is not a supported field'],
      [['name'], 'body must be an object'],
      [undefined, 'body must be an object'],
    ];
    for (const [body, message] of cases) {
      const r = await svc.api('POST', '/svc/auth/keys', body, { token: session });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body, JSON.stringify(body)).toEqual({ message, code: 'VALIDATION_ERROR', details: { errors: [message] } });
    }
    const exact = await svc.api('POST', '/svc/auth/keys', { name: 'x'.repeat(64) }, { token: session });
    expect(exact.status).toBe(201);
    expect((await svc.api('DELETE', `/svc/auth/keys/${exact.body.id}`, undefined, { token: session })).status).toBe(204);
  });

  it('answer hostile bodies and ids without a 5xx, in the standard error body', async () => {
    const bodies: unknown[] = [null, 0, 'name', true, [], { name: null }, { name: ['a'] }, { name: { $gt: '' } }, { name: 'a\u0000b' },
      { name: 'ключ' }, { name: '😀' }, { name: 'x'.repeat(100_000) }, { constructor: { prototype: {} } }];
    const json = { 'content-type': 'application/json' };
    const raw = ['{"name":"ok","__proto__":{"admin":true}}', '{"name":"a","name":"b","x":1}', '{"name":"ok"', '{"name":"\\ud800"}'];
    for (const body of [...bodies.map((b) => JSON.stringify(b)), ...raw]) {
      const r = await svc.api('POST', '/svc/auth/keys', undefined, { token: session, raw: body, headers: json });
      expect(r.status, body.slice(0, 80)).toBe(400);
      expect(r.body.code).toBe('VALIDATION_ERROR');
      expect(typeof r.body.message).toBe('string');
    }
    for (const id of ['%00', '..%2F..%2Fauth%2Fpassword', 'x'.repeat(100), '%F0%9F%98%80', early.id.toUpperCase(), `${early.id}%20`]) {
      const r = await svc.api('DELETE', `/svc/auth/keys/${id}`, undefined, { token: session });
      expect(r.status, id.slice(0, 80)).toBe(404);
      expect(r.body.code).toBe('NOT_FOUND');
    }
    expect((await svc.api('GET', '/svc/auth/keys', undefined, { token: session })).body).toHaveLength(2);
  });

  it(`are capped at ${MAX_API_KEYS}, with a clear error`, async () => {
    const fillers: string[] = [];
    for (let i = 2; i < MAX_API_KEYS; i++) {
      const r = await svc.api('POST', '/svc/auth/keys', { name: `filler-${i}` }, { token: session });
      expect(r.status).toBe(201);
      fillers.push(r.body.id);
    }
    const full = await svc.api('POST', '/svc/auth/keys', { name: 'one too many' }, { token: session });
    expect(full.status).toBe(400);
    const message = `at most ${MAX_API_KEYS} API keys can exist; revoke one first`;
    expect(full.body).toEqual({ message, code: 'VALIDATION_ERROR', details: { errors: [message] } });
    for (const id of fillers) expect((await svc.api('DELETE', `/svc/auth/keys/${id}`, undefined, { token: session })).status).toBe(204);
    expect((await svc.api('GET', '/svc/auth/keys', undefined, { token: session })).body).toHaveLength(2);
  });

  it('survive a restart, and are on disk only as SHA-256 digests', async () => {
    expect(await svc.stop()).toBe(0);
    logs.push(svc.logs());
    for (const { key } of [early, scraper]) {
      const random = key.slice('edk_'.length);
      const rawBytes = Buffer.from(random, 'base64url');
      for (const file of filesUnder(dataDir)) {
        const content = readFileSync(file);
        expect(content.includes(random), file).toBe(false);
        expect(content.includes(rawBytes), file).toBe(false);
      }
    }
    const stored = JSON.parse(readFileSync(join(dataDir, 'auth', 'api-keys.json'), 'utf8'));
    expect(stored.keys.map((k: any) => k.digest)).toEqual([early.key, scraper.key].map((k) => createHash('sha256').update(k).digest('hex')));
    // The first use was written at once (nothing was stored yet); later ones only every 10 minutes.
    expect(typeof stored.keys[1].last_used_at).toBe('string');

    svc = await startService({ dataDir });
    expect((await svc.api('GET', '/svc/pipeline', undefined, { token: scraper.key })).status).toBe(200);
    const list = await svc.api('GET', '/svc/auth/keys', undefined, { token: scraper.key });
    expect(list.body.map((k: any) => k.name)).toEqual(['made before the password', 'prometheus']);
    expect(list.body[1].last_used_at).not.toBeNull();
  });

  it('outlive a password removal (inert while auth is off) and work again once a password is set', async () => {
    session = (await svc.api('POST', '/svc/auth/login', { password: PASSWORD })).body.token;
    expect((await svc.api('DELETE', '/svc/auth/password', undefined, { token: session })).status).toBe(200);
    expect((await svc.api('GET', '/svc/auth/keys')).body).toHaveLength(2);
    expect((await svc.api('PUT', '/svc/auth/password', { password: `${PASSWORD} again` })).status).toBe(200);
    expect((await svc.api('GET', '/svc/pipeline', undefined, { token: scraper.key })).status).toBe(200);
    expect((await svc.api('GET', '/svc/pipeline')).status).toBe(401);
    session = (await svc.api('POST', '/svc/auth/login', { password: `${PASSWORD} again` })).body.token;
  });

  it('once revoked answer 401 at once; revoking an unknown id is 404 NOT_FOUND', async () => {
    expect((await svc.api('DELETE', `/svc/auth/keys/${scraper.id}`, undefined, { token: session })).status).toBe(204);
    const r = await svc.api('GET', '/svc/pipeline', undefined, { token: scraper.key });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'Unauthorized' });
    await expect(openSse(svc.port, '/svc/pipeline/nope/status/events', { authorization: `Bearer ${scraper.key}` })).rejects.toThrow(/401/);
    expect((await svc.api('GET', '/svc/auth/keys', undefined, { token: session })).body.map((k: any) => k.id)).toEqual([early.id]);
    const again = await svc.api('DELETE', `/svc/auth/keys/${scraper.id}`, undefined, { token: session });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: `API key "${scraper.id}" not found`, code: 'NOT_FOUND' });
    // Still revoked after a restart.
    expect(await svc.stop()).toBe(0);
    logs.push(svc.logs());
    svc = await startService({ dataDir });
    expect((await svc.api('GET', '/svc/pipeline', undefined, { token: scraper.key })).status).toBe(401);
    expect((await svc.api('GET', '/svc/pipeline', undefined, { token: early.key })).status).toBe(200);
  });

  it('never reach the logs', async () => {
    expect(await svc.stop()).toBe(0);
    const all = [...logs, svc.logs()].join('');
    expect(all).toContain('API key created');
    expect(all).toContain('API key revoked');
    for (const { key } of [early, scraper]) expect(all).not.toContain(key.slice('edk_'.length));
  });
});
