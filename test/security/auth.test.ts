/**
 * Authentication end to end over real HTTPS against the compiled service: the spec's table, the public
 * endpoints, tokens surviving a restart, logout of one token only, password change and removal, and what
 * lands on disk (digests, argon2id hash, key file modes).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse } from '../helpers/sse';
import { startService, type RunningService } from '../helpers/service';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'staple and another one';

/** Each phase logs in from its own (proxied) address so the login limit of one does not touch another. */
const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('authentication over HTTPS', () => {
  let svc: RunningService;
  let tokenA: string;
  let tokenB: string;

  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('is off until a password is set: everything open, login matches nothing', async () => {
    expect((await svc.api('GET', '/svc/auth/status')).body).toEqual({ auth_enabled: false });
    expect((await svc.api('GET', '/svc/pipeline')).status).toBe(200);
    const login = await svc.api('POST', '/svc/auth/login', { password: PASSWORD }, from('10.0.0.1'));
    expect(login.status).toBe(400);
    expect(login.body).toEqual({ error: 'Invalid password' });
  });

  it('refuses a password shorter than 12 characters with VALIDATION_ERROR', async () => {
    const r = await svc.api('PUT', '/svc/auth/password', { password: 'elevenchars' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('VALIDATION_ERROR');
    expect(r.body.details.errors).toEqual(['password must be at least 12 characters']);
    const wrongType = await svc.api('PUT', '/svc/auth/password', { password: 123456789012 });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.details.errors).toEqual(['password must be a string']);
    expect((await svc.api('GET', '/svc/auth/status')).body).toEqual({ auth_enabled: false });
  });

  it('lets anyone set the first password, then needs a token everywhere but the public endpoints', async () => {
    const set = await svc.api('PUT', '/svc/auth/password', { password: PASSWORD });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ auth_enabled: true });
    expect((await svc.api('GET', '/svc/auth/status')).body).toEqual({ auth_enabled: true });

    for (const path of ['/svc/health', '/svc/healthz', '/svc/version', '/svc/auth/status']) {
      expect((await svc.api('GET', path)).status, path).toBe(200);
      expect((await svc.api('HEAD', path)).status, `HEAD ${path}`).toBe(200);
    }
    const closed: Array<[string, string]> = [
      ['GET', '/svc/pipeline'], ['POST', '/svc/pipeline'], ['GET', '/svc/pipeline/x'], ['DELETE', '/svc/pipeline/x'],
      ['PUT', '/svc/pipeline/x/play'], ['POST', '/svc/auth/logout'], ['PUT', '/svc/auth/password'], ['DELETE', '/svc/auth/password'],
      ['GET', '/svc/no-such-route'], ['GET', '/svc/health/'], ['POST', '/svc/health'], ['GET', '/svc/auth/login'],
    ];
    for (const [method, path] of closed) {
      const r = await svc.api(method, path, method === 'GET' || method === 'DELETE' ? undefined : { password: 'attacker chosen 1' });
      expect(r.status, `${method} ${path}`).toBe(401);
      expect(r.body, `${method} ${path}`).toEqual({ error: 'Unauthorized' });
      expect(r.headers['www-authenticate']).toBe('Bearer');
    }
    // The SSE stream is gated like everything else.
    await expect(openSse(svc.port, '/svc/pipeline/x/status/events')).rejects.toThrow(/401/);
    // Nobody replaced the password while it was unauthenticated.
    expect((await svc.api('POST', '/svc/auth/login', { password: 'attacker chosen 1' }, from('10.0.0.2'))).status).toBe(400);
  });

  it('logs in with the right password only; a token is 256 random bits valid 24 hours', async () => {
    const wrong = await svc.api('POST', '/svc/auth/login', { password: 'not the password' }, from('10.0.0.3'));
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'Invalid password' });
    const before = Date.now();
    const a = await svc.api('POST', '/svc/auth/login', { password: PASSWORD }, from('10.0.0.3'));
    expect(a.status).toBe(200);
    expect(Object.keys(a.body).sort()).toEqual(['expires_at', 'token']);
    expect(a.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.body.token, 'base64url')).toHaveLength(32);
    const expires = Date.parse(a.body.expires_at);
    expect(a.body.expires_at).toBe(new Date(expires).toISOString());
    expect(expires - before).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    tokenA = a.body.token;
    tokenB = (await svc.api('POST', '/svc/auth/login', { password: PASSWORD }, from('10.0.0.3'))).body.token;
    expect(tokenB).not.toBe(tokenA);

    expect((await svc.api('GET', '/svc/pipeline', undefined, { token: tokenA })).status).toBe(200);
    expect((await svc.api('GET', '/svc/pipeline', undefined, { headers: { authorization: `bearer ${tokenA}` } })).status).toBe(200);
    for (const authorization of [tokenA, `Basic ${tokenA}`, `Bearer ${tokenA}x`, `Bearer ${tokenA.slice(0, -1)}${tokenA.endsWith('A') ? 'B' : 'A'}`, 'Bearer ', `Bearer ${tokenA} ${tokenA}`]) {
      expect((await svc.api('GET', '/svc/pipeline', undefined, { headers: { authorization } })).status, authorization).toBe(401);
    }
    const sse = await openSse(svc.port, '/svc/pipeline/none/status/events', { authorization: `Bearer ${tokenA}` });
    expect((await sse.next((e) => e.event === 'pipeline_not_found')).data).toEqual({ pipeline_id: 'none' });
    sse.close();
  });

  it('keeps on disk only digests, an argon2id hash and a 0600 key file', async () => {
    const files = filesUnder(svc.dataDir);
    for (const f of files) {
      const text = readFileSync(f).toString('latin1');
      expect(text.includes(tokenA), f).toBe(false);
      expect(text.includes(tokenB), f).toBe(false);
      expect(text.includes(PASSWORD), f).toBe(false);
      expect(text.includes(Buffer.from(tokenA, 'base64url').toString('hex')), f).toBe(false);
    }
    const password = JSON.parse(readFileSync(join(svc.dataDir, 'auth/password.json'), 'utf8'));
    expect(password.hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    const sessions = JSON.parse(readFileSync(join(svc.dataDir, 'auth/sessions.json'), 'utf8'));
    expect(sessions.sessions).toHaveLength(2);
    for (const s of sessions.sessions) expect(s.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(svc.dataDir, 'secrets/token-hmac.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(svc.dataDir, 'secrets/token-hmac.key')).size).toBe(32);
    expect(statSync(join(svc.dataDir, 'auth/password.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(svc.dataDir, 'auth')).mode & 0o777).toBe(0o700);
    expect(statSync(join(svc.dataDir, 'secrets')).mode & 0o777).toBe(0o700);
  });

  it('keeps sessions across a restart', async () => {
    expect(await svc.stop()).toBe(0);
    svc = await startService({ dataDir: svc.dataDir });
    expect((await svc.api('GET', '/svc/auth/status')).body).toEqual({ auth_enabled: true });
    expect((await svc.api('GET', '/svc/pipeline', undefined, { token: tokenA })).status).toBe(200);
    expect((await svc.api('GET', '/svc/pipeline')).status).toBe(401);
  });

  it('logout ends only the token it was given', async () => {
    const r = await svc.api('POST', '/svc/auth/logout', undefined, { token: tokenA });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect((await svc.api('GET', '/svc/pipeline', undefined, { token: tokenA })).status).toBe(401);
    expect((await svc.api('POST', '/svc/auth/logout', undefined, { token: tokenA })).status).toBe(401);
    expect((await svc.api('GET', '/svc/pipeline', undefined, { token: tokenB })).status).toBe(200);
  });

  it('changing the password keeps the caller\'s session and ends every other one', async () => {
    const other = (await svc.api('POST', '/svc/auth/login', { password: PASSWORD }, from('10.0.0.4'))).body.token as string;
    const short = await svc.api('PUT', '/svc/auth/password', { password: 'short' }, { token: tokenB });
    expect(short.status).toBe(400);
    expect(short.body.code).toBe('VALIDATION_ERROR');
    const r = await svc.api('PUT', '/svc/auth/password', { password: NEW_PASSWORD }, { token: tokenB });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ auth_enabled: true });
    expect((await svc.api('GET', '/svc/pipeline', undefined, { token: tokenB })).status).toBe(200);
    expect((await svc.api('GET', '/svc/pipeline', undefined, { token: other })).status).toBe(401);
    expect((await svc.api('POST', '/svc/auth/login', { password: PASSWORD }, from('10.0.0.5'))).body).toEqual({ error: 'Invalid password' });
    expect((await svc.api('POST', '/svc/auth/login', { password: NEW_PASSWORD }, from('10.0.0.5'))).status).toBe(200);
  });

  it('removing the password disables auth and ends every session', async () => {
    const r = await svc.api('DELETE', '/svc/auth/password', undefined, { token: tokenB });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ auth_enabled: false });
    expect((await svc.api('GET', '/svc/auth/status')).body).toEqual({ auth_enabled: false });
    expect((await svc.api('GET', '/svc/pipeline')).status).toBe(200);
    const sessions = JSON.parse(readFileSync(join(svc.dataDir, 'auth/sessions.json'), 'utf8'));
    expect(sessions.sessions).toEqual([]);
    // A new password later does not bring the old sessions back.
    expect((await svc.api('PUT', '/svc/auth/password', { password: PASSWORD })).status).toBe(200);
    expect((await svc.api('GET', '/svc/pipeline', undefined, { token: tokenB })).status).toBe(401);
  });
});
