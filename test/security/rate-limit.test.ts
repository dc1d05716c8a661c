/**
 * Rate limits: the sliding window itself (with a clock the test controls), client addresses behind a trusted
 * proxy, and the login limit end to end over HTTPS (5 attempts per 15 minutes per client IP, then 429 with
 * Retry-After in the spec's body).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseIp, resolveClientIp } from '../../core/http/client-ip';
import { LIMITS, RateLimiter } from '../../core/http/rate-limit';
import { startService, type RunningService } from '../helpers/service';

describe('RateLimiter (sliding window log)', () => {
  it('allows limit requests per window per key and names when the next one is allowed', () => {
    let now = 1_000_000;
    const rl = new RateLimiter({ ...LIMITS.login, now: () => now });
    for (let i = 0; i < 5; i++) expect(rl.take('a').allowed).toBe(true);
    expect(rl.take('a')).toEqual({ allowed: false, retryAfterSeconds: 900 });
    expect(rl.take('b').allowed).toBe(true);
    now += 60_000;
    expect(rl.take('a')).toEqual({ allowed: false, retryAfterSeconds: 840 });
    // Refused requests do not count: the five attempts leave the window at exactly 15 minutes.
    now = 1_000_000 + 15 * 60_000 - 1;
    expect(rl.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now += 1;
    expect(rl.take('a')).toEqual({ allowed: true, remaining: 4 });
    // Sliding, not fixed: that attempt stays counted for its own 15 minutes.
    for (let i = 0; i < 4; i++) expect(rl.take('a').allowed).toBe(true);
    now += 14 * 60_000;
    expect(rl.take('a')).toEqual({ allowed: false, retryAfterSeconds: 60 });
  });

  it('serves the framegrab delete limits too (60 and 10 per minute)', () => {
    let now = 0;
    const perFile = new RateLimiter({ ...LIMITS.framegrabDeleteFile, now: () => now });
    const perPipeline = new RateLimiter({ ...LIMITS.framegrabDeleteByPipeline, now: () => now });
    for (let i = 0; i < 60; i++) expect(perFile.take('ip').allowed).toBe(true);
    for (let i = 0; i < 10; i++) expect(perPipeline.take('ip').allowed).toBe(true);
    expect(perFile.take('ip')).toEqual({ allowed: false, retryAfterSeconds: 60 });
    expect(perPipeline.take('ip')).toEqual({ allowed: false, retryAfterSeconds: 60 });
    now = 60_000;
    expect(perFile.take('ip').allowed).toBe(true);
  });

  it('bounds its memory by forgetting the least recently used key', () => {
    const rl = new RateLimiter({ limit: 1, windowMs: 60_000, maxKeys: 3 });
    for (const k of ['a', 'b', 'c', 'd']) expect(rl.take(k).allowed).toBe(true);
    expect(rl.take('a').allowed).toBe(true);
    expect(rl.take('d').allowed).toBe(false);
  });
});

describe('client address', () => {
  const trusted = ['127.0.0.1', '::1'];
  it('is the socket peer unless the peer is a trusted proxy', () => {
    expect(resolveClientIp('10.0.0.9', '1.2.3.4', trusted)).toBe('10.0.0.9');
    expect(resolveClientIp('::ffff:10.0.0.9', undefined, trusted)).toBe('10.0.0.9');
    expect(resolveClientIp('::ffff:127.0.0.1', '1.2.3.4', trusted)).toBe('1.2.3.4');
    expect(resolveClientIp('127.0.0.1', '1.2.3.4', [])).toBe('127.0.0.1');
  });
  it('reads X-Forwarded-For from the right, so a client cannot prepend its way out', () => {
    expect(resolveClientIp('127.0.0.1', '6.6.6.6, 1.2.3.4', trusted)).toBe('1.2.3.4');
    expect(resolveClientIp('127.0.0.1', ['6.6.6.6', '1.2.3.4, 127.0.0.1'], trusted)).toBe('1.2.3.4');
    expect(resolveClientIp('127.0.0.1', 'not-an-ip', trusted)).toBe('127.0.0.1');
    expect(resolveClientIp('127.0.0.1', '127.0.0.1', trusted)).toBe('127.0.0.1');
    expect(resolveClientIp('::1', 'FE80::1%eth0', trusted)).toBe('fe80::1');
    expect(normaliseIp(' 2001:DB8::1 ')).toBe('2001:db8::1');
  });
});

describe('login limit over HTTPS', () => {
  let proxied: RunningService;
  let direct: RunningService;
  const PASSWORD = 'a long enough password';

  beforeAll(async () => {
    // Default config trusts 127.0.0.1 as the web UI's proxy, so X-Forwarded-For stands for distinct clients.
    proxied = await startService();
    // No trusted proxy: X-Forwarded-For is the client's own claim and is ignored.
    direct = await startService({ args: ['--trusted-proxies='] });
    for (const s of [proxied, direct]) expect((await s.api('PUT', '/svc/auth/password', { password: PASSWORD })).status).toBe(200);
  });
  afterAll(async () => {
    await Promise.all([proxied?.stop(), direct?.stop()]);
  });

  const as = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });

  it('counts every attempt (wrong, malformed, right) and refuses the sixth with 429 and Retry-After', async () => {
    const attempts = [
      await proxied.api('POST', '/svc/auth/login', { password: 'wrong password!' }, as('192.0.2.1')),
      await proxied.api('POST', '/svc/auth/login', {}, as('192.0.2.1')),
      await proxied.api('POST', '/svc/auth/login', { password: PASSWORD }, as('192.0.2.1')),
      await proxied.api('POST', '/svc/auth/login', { password: 'wrong again...' }, as('192.0.2.1')),
      await proxied.api('POST', '/svc/auth/login', { password: PASSWORD }, as('192.0.2.1')),
    ];
    expect(attempts.map((r) => r.status)).toEqual([400, 400, 200, 400, 200]);
    for (const password of [PASSWORD, 'wrong password!']) {
      const r = await proxied.api('POST', '/svc/auth/login', { password }, as('192.0.2.1'));
      expect(r.status).toBe(429);
      expect(Object.keys(r.body).sort()).toEqual(['code', 'message', 'retry_after_seconds']);
      expect(r.body.code).toBe('RATE_LIMITED');
      expect(r.body.retry_after_seconds).toBeGreaterThan(890);
      expect(r.body.retry_after_seconds).toBeLessThanOrEqual(900);
      expect(r.headers['retry-after']).toBe(String(r.body.retry_after_seconds));
    }
    // Another client behind the same proxy is untouched, and so is a valid token of the limited one.
    expect((await proxied.api('POST', '/svc/auth/login', { password: PASSWORD }, as('192.0.2.2'))).status).toBe(200);
    const token = attempts[2].body.token as string;
    expect((await proxied.api('GET', '/svc/pipeline', undefined, { token })).status).toBe(200);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push((await direct.api('POST', '/svc/auth/login', { password: 'wrong password!' }, as(`198.51.100.${i}`))).status);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429, 429]);
  });
});
