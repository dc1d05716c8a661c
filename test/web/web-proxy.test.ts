/**
 * The web UI's server on its own HTTPS port: /api/* reaches the real API (/svc/*) through the proxy — bodies,
 * methods, errors, SSE unbuffered, auth, and X-Forwarded-For carrying the browser's address. Real service,
 * real HTTPS, real pipelines (test source → H.264 → file).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, h264Body, startService, type RunningService } from '../helpers/service';
import { openSse } from '../helpers/sse';
import { call } from './client';

let svc: RunningService;
let web: number;
const out = mkdtempSync(join(tmpdir(), 'encoderd-web-'));

beforeAll(async () => {
  web = await freePort();
  svc = await startService({ args: ['--web-port', String(web)] });
});
afterAll(async () => {
  await svc?.stop();
});

describe('web UI proxy (no password)', () => {
  it('answers /api/health in the API\'s own shape', async () => {
    const direct = await svc.api('GET', '/svc/health');
    const proxied = await call(web, 'GET', '/api/health');
    expect(proxied.status).toBe(200);
    expect(proxied.headers['content-type']).toMatch(/application\/json/);
    expect(Object.keys(proxied.body).sort()).toEqual(Object.keys(direct.body).sort());
    expect(Object.keys(proxied.body.engine).sort()).toEqual(Object.keys(direct.body.engine).sort());
    expect(proxied.body.status).toBe('ok');
  });

  it('gives the API\'s own 404 body for an unknown /api path, and its validation errors', async () => {
    const r = await call(web, 'GET', '/api/no/such/thing?x=1');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ message: 'no route GET /svc/no/such/thing', code: 'NOT_FOUND' });
    const bad = await call(web, 'POST', '/api/pipeline', { body: h264Body('bad one', join(out, 'x.ts')) });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    expect(bad.body.message).toMatch(/id/);
  });

  it('creates, plays, streams status over SSE promptly, stops and deletes through /api', async () => {
    const created = await call(web, 'POST', '/api/pipeline', { body: h264Body('viaweb', join(out, 'viaweb.ts')) });
    expect(created.status).toBe(201);
    expect(created.body.state).toBe('playing');
    const sse = await openSse(web, '/api/pipeline/viaweb/status/events');
    try {
      await sse.next((e) => e.event === 'pipeline_status' && e.data.state === 'playing', 3000);
      const stopped = await call(web, 'PUT', '/api/pipeline/viaweb/stop');
      expect(stopped.body.state).toBe('ready');
      await sse.next((e) => e.event === 'pipeline_status' && e.data.state === 'ready', 3000);
      const t0 = Date.now();
      const played = await call(web, 'PUT', '/api/pipeline/viaweb/play');
      expect(played.status).toBe(200);
      expect(played.body.state).toBe('playing');
      // The event was written by the API at once; a buffering proxy would hold it (until 4/16 KiB or the end).
      await sse.next((e) => e.event === 'pipeline_status' && e.data.state === 'playing' && e !== sse.events[0], 3000);
      expect(Date.now() - t0).toBeLessThan(3000);
      // A running pipeline cannot be deleted: the API's 409 comes through as it is.
      const busy = await call(web, 'DELETE', '/api/pipeline/viaweb');
      expect(busy.status).toBe(409);
      expect(busy.body.code).toBe('CONFLICT');
      expect((await call(web, 'PUT', '/api/pipeline/viaweb/stop')).status).toBe(200);
      const del = await call(web, 'DELETE', '/api/pipeline/viaweb');
      expect(del.status).toBe(204);
      await sse.next((e) => e.event === 'pipeline_not_found', 3000);
      await sse.ended;
    } finally {
      sse.close();
    }
    expect((await svc.api('GET', '/svc/pipeline/viaweb')).status).toBe(404);
  });

  it('closes the API-side stream when the browser goes', async () => {
    await call(web, 'POST', '/api/pipeline', { body: h264Body('gone', join(out, 'gone.ts')) });
    const sse = await openSse(web, '/api/pipeline/gone/status/events');
    await sse.next((e) => e.event === 'pipeline_status');
    sse.close();
    // Stopping and deleting afterwards must not be held up by a subscriber nobody reads.
    expect((await call(web, 'PUT', '/api/pipeline/gone/stop')).status).toBe(200);
    const del = await call(web, 'DELETE', '/api/pipeline/gone');
    expect(del.status).toBe(204);
  });

  it('passes X-Forwarded-For as the browser\'s address: the login limit counts per client, not per proxy', async () => {
    // Loopback has a whole /8: clients at 127.0.0.2 and 127.0.0.3 are distinct, untrusted addresses.
    for (let i = 0; i < 5; i++) {
      const r = await call(web, 'POST', '/api/auth/login', { body: { password: 'wrong-password-123' }, localAddress: '127.0.0.2' });
      expect(r.status).toBe(400);
    }
    const sixth = await call(web, 'POST', '/api/auth/login', { body: { password: 'wrong-password-123' }, localAddress: '127.0.0.2' });
    expect(sixth.status).toBe(429);
    expect(sixth.body.code).toBe('RATE_LIMITED');
    expect(sixth.headers['retry-after']).toBeDefined();
    // Another browser behind the same proxy is not locked out…
    const other = await call(web, 'POST', '/api/auth/login', { body: { password: 'wrong-password-123' }, localAddress: '127.0.0.3' });
    expect(other.status).toBe(400);
    // …and a forged X-Forwarded-For from the locked-out client does not get it in either: the proxy replaces it.
    const forged = await call(web, 'POST', '/api/auth/login', { body: { password: 'wrong-password-123' }, localAddress: '127.0.0.2', headers: { 'x-forwarded-for': '10.9.8.7' } });
    expect(forged.status).toBe(429);
    expect(svc.logs()).toMatch(/"client":"127\.0\.0\.2".*login failed|login failed.*"client":"127\.0\.0\.2"/);
  });
});

describe('web UI proxy with a password', () => {
  it('answers 401 without a token and works with one; public endpoints stay public', async () => {
    const password = 'correct horse battery';
    expect((await call(web, 'PUT', '/api/auth/password', { body: { password } })).status).toBe(200);
    const denied = await call(web, 'GET', '/api/pipeline');
    expect(denied.status).toBe(401);
    expect(denied.body).toEqual({ error: 'Unauthorized' });
    expect(denied.headers['www-authenticate']).toBe('Bearer');
    expect((await call(web, 'GET', '/api/health')).status).toBe(200);
    const login = await call(web, 'POST', '/api/auth/login', { body: { password }, localAddress: '127.0.0.4' });
    expect(login.status).toBe(200);
    const token = login.body.token as string;
    const list = await call(web, 'GET', '/api/pipeline', { token });
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    const sseDenied = await openSse(web, '/api/pipeline/x/status/events').then(() => 'opened', (e: Error) => e.message);
    expect(sseDenied).toMatch(/401/);
    const sse = await openSse(web, '/api/pipeline/x/status/events', { authorization: `Bearer ${token}` });
    await sse.next((e) => e.event === 'pipeline_not_found');
    sse.close();
    expect((await call(web, 'DELETE', '/api/auth/password', { token })).status).toBe(200);
  });
});
