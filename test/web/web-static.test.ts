/** The web UI's own files: the SPA, content types, security headers, and no way out of web/. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, ROOT, startService, type RunningService } from '../helpers/service';
import { call } from './client';

let svc: RunningService;
let web: number;

beforeAll(async () => {
  web = await freePort();
  svc = await startService({ args: ['--web-port', String(web)] });
});
afterAll(async () => {
  await svc?.stop();
});

describe('web UI files', () => {
  it('serves index.html at / with a strict CSP', async () => {
    const r = await call(web, 'GET', '/');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.text).toBe(readFileSync(join(ROOT, 'web/index.html'), 'utf8'));
    expect(r.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });

  it('serves each kind of file with its content type', async () => {
    const cases: Array<[string, string]> = [
      ['/index.html', 'text/html; charset=utf-8'],
      ['/style.css', 'text/css; charset=utf-8'],
      ['/js/main.js', 'text/javascript; charset=utf-8'],
      ['/js/api.js', 'text/javascript; charset=utf-8'],
      ['/favicon.svg', 'image/svg+xml'],
    ];
    for (const [path, type] of cases) {
      const r = await call(web, 'GET', path);
      expect(r.status, path).toBe(200);
      expect(r.headers['content-type'], path).toBe(type);
      expect(r.text).toBe(readFileSync(join(ROOT, 'web', path), 'utf8'));
    }
    const head = await call(web, 'HEAD', '/style.css');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(100);
  });

  it('refuses to leave web/ however the path is spelled', async () => {
    const secret = readFileSync(join(ROOT, 'core/app.ts'), 'utf8').slice(0, 60);
    for (const path of ['/../core/app.ts', '/%2e%2e/core/app.ts', '/js/%2E%2E/%2e%2e/core/app.ts', '/..%2fcore%2fapp.ts', '/js/..%5c..%5ccore%5capp.ts',
      '/%2e%2e%2f%2e%2e%2fetc%2fpasswd', '/.git/config', '/index.html%00.js', '/js/']) {
      const r = await call(web, 'GET', path);
      expect(r.status, path).toBe(404);
      expect(r.text).not.toContain(secret);
      expect(r.text).not.toMatch(/root:x:0/);
    }
  });

  it('answers 404 for a missing file and 405 for other methods outside /api', async () => {
    expect((await call(web, 'GET', '/nope.js')).status).toBe(404);
    const r = await call(web, 'POST', '/index.html', { body: {} });
    expect(r.status).toBe(405);
    expect(r.body.code).toBe('METHOD_NOT_ALLOWED');
  });
});
