/**
 * Secrets never reach the logs: the logger's central redaction on its own (a memory destination), and the
 * real service's output after a password is set, logins right and wrong, bearer tokens, secret query
 * parameters, and a pipeline whose URIs carry user:pass@.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, redactText } from '../../core/log/logger';
import { h264Body, startService, type RunningService } from '../helpers/service';

function memoryLogger() {
  const lines: string[] = [];
  const dest = new Writable({ write(chunk, _enc, cb) { lines.push(String(chunk)); cb(); } });
  return { log: createLogger('info', dest), text: () => lines.join('') };
}

describe('logger redaction', () => {
  it('censors secret-named fields at any depth, webhook headers whole, and secrets inside strings and errors', () => {
    const { log, text } = memoryLogger();
    log.info({ body: { password: 'pw-in-body-1' }, a: { b: { c: { token: 'tok-deep-2', client_secret: 'cs-3' } } } }, 'fields');
    log.info({ webhook: { url: 'https://hook.example/x?api_key=key-4', headers: { 'X-Api-Key': 'hdr-5', Authorization: 'Bearer hdr-6' } } }, 'webhook');
    log.info({ req: { headers: { authorization: 'Bearer abcdef7', cookie: 'sid=cookie-8' } } }, 'request');
    log.warn('connecting to rtsp://admin:pw-9@10.0.0.1/stream with Authorization: Bearer tok-10 and /x?password=pw-11&n=1');
    log.error({ err: new Error('source rtsp://user:pw-12@cam/x failed') }, 'error');
    log.info({ pipeline: { source: { uri: 'rtsp://user:pw-13@cam/x' }, output: { uri: 'udp://127.0.0.1:5000' } } }, 'pipeline');
    const out = text();
    for (const secret of ['pw-in-body-1', 'tok-deep-2', 'cs-3', 'key-4', 'hdr-5', 'hdr-6', 'abcdef7', 'cookie-8', 'pw-9', 'tok-10', 'pw-11', 'pw-12', 'pw-13']) {
      expect(out, secret).not.toContain(secret);
    }
    // What is not secret survives, so the logs stay useful.
    expect(out).toContain('rtsp://***@10.0.0.1/stream');
    expect(out).toContain('udp://127.0.0.1:5000');
    expect(out).toContain('"type":"Error"');
    expect(out).toContain('source rtsp://***@cam/x failed');
    expect(out).toContain('&n=1');
  });

  it('redactText is idempotent and leaves plain text alone', () => {
    const once = redactText('rtsp://a:b@h/x Bearer t0k3n ?token=zz');
    expect(redactText(once)).toBe(once);
    expect(redactText('pipeline p1 started on udp://239.1.1.1:5000')).toBe('pipeline p1 started on udp://239.1.1.1:5000');
  });
});

describe('service logs over HTTPS', () => {
  let svc: RunningService;
  const PASSWORD = 'log-test-password-XYZ';
  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('hold no password, token or URI credential after auth and pipeline traffic', async () => {
    expect((await svc.api('PUT', '/svc/auth/password', { password: PASSWORD })).status).toBe(200);
    expect((await svc.api('POST', '/svc/auth/login', { password: 'wrong-password-QRS' })).status).toBe(400);
    const login = await svc.api('POST', '/svc/auth/login', { password: PASSWORD });
    const token = login.body.token as string;
    await svc.api('GET', `/svc/nothing?token=${token}&password=${PASSWORD}`, undefined, { token });
    await svc.api('GET', '/svc/pipeline', undefined, { headers: { authorization: 'Bearer not-a-real-token-LMN' } });
    const created = await svc.api('POST', '/svc/pipeline', {
      id: 'cred', mode: 'simple', source: { uri: 'rtsp://operator:camsecret-UVW@127.0.0.1:1/stream' },
      output: { uri: 'udp://127.0.0.1:5999' },
    }, { token });
    expect(created.status).toBeGreaterThanOrEqual(200);
    const other = await svc.api('POST', '/svc/pipeline', h264Body('cred2', 'rtsp://viewer:outsecret-RST@0.0.0.0:1/x'), { token });
    expect(other.status).toBeGreaterThanOrEqual(200);
    await svc.api('DELETE', '/svc/pipeline/cred', undefined, { token });
    await svc.api('PUT', '/svc/auth/password', { password: `${PASSWORD}-2` }, { token });
    expect(await svc.stop()).toBe(0);
    const logs = svc.logs();
    // The capture works: the auth events are there.
    expect(logs).toContain('authentication enabled');
    expect(logs).toContain('login failed');
    expect(logs).toContain('password changed');
    for (const secret of [PASSWORD, 'wrong-password-QRS', token, 'not-a-real-token-LMN', 'camsecret-UVW', 'outsecret-RST']) {
      expect(logs, secret).not.toContain(secret);
    }
  });
});
