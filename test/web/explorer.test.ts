/**
 * The API explorer: plain HTTP, off unless a port is configured AND explorer_enabled is true (followed live);
 * Swagger UI over an OpenAPI 3 document generated from the real route schemas.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startService, waitFor, type RunningService } from '../helpers/service';
import { call } from './client';

const get = (port: number, path: string, headers?: Record<string, string>) => call(port, 'GET', path, { plain: true, headers });
const listening = (port: number) => get(port, '/').then(() => true, () => false);

describe('API explorer', () => {
  let svc: RunningService;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    svc = await startService({ args: ['--explorer-port', String(port)] });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('is off by default: no port configured means nothing listens, whatever the setting', async () => {
    const before = await listening(38081);
    const plain = await startService();
    try {
      expect((await plain.api('PUT', '/svc/settings', { explorer_enabled: true })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      // No port configured: the conventional 38081 stays as it was (closed, unless something else owns it).
      expect(await listening(38081)).toBe(before);
      expect(plain.logs()).not.toMatch(/API explorer/);
    } finally {
      await plain.stop();
    }
  });

  it('does not listen on its port until explorer_enabled is set, and stops when it is cleared', async () => {
    expect(await listening(port)).toBe(false);
    expect((await svc.api('PUT', '/svc/settings', { explorer_enabled: true })).status).toBe(200);
    await waitFor(() => listening(port), 5000);
    expect((await svc.api('PUT', '/svc/settings', { explorer_enabled: false })).status).toBe(200);
    await waitFor(async () => !(await listening(port)), 5000);
    expect((await svc.api('PUT', '/svc/settings', { explorer_enabled: true })).status).toBe(200);
    await waitFor(() => listening(port), 5000);
  });

  it('serves Swagger UI', async () => {
    const page = await get(port, '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('swagger-ui-bundle.js');
    const bundle = await get(port, '/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(bundle.text).toContain('SwaggerUIBundle');
    expect((await get(port, '/swagger-ui.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await get(port, '/explorer-init.js')).text).toContain("url: '/openapi.json'");
    expect((await get(port, '/package.json')).status).toBe(404);
    expect((await get(port, '/../package.json')).status).toBe(404);
  });

  it('serves an OpenAPI 3 document generated from the route schemas', async () => {
    const r = await get(port, '/openapi.json');
    expect(r.status).toBe(200);
    const doc = r.body;
    expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(doc.info.title).toBe('encoderd');
    expect(doc.info.version).toBe((await svc.api('GET', '/svc/version')).body.version);
    for (const path of ['/svc/pipeline', '/svc/pipeline/{id}', '/svc/pipeline/{id}/play', '/svc/pipeline/{id}/status/events', '/svc/settings', '/svc/webhooks', '/svc/health', '/svc/auth/login', '/svc/licence']) {
      expect(doc.paths[path], path).toBeDefined();
    }
    // Structure: every operation answers something; every templated path declares its parameters.
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      expect(path.startsWith('/svc/')).toBe(true);
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries<any>(ops)) {
        expect(['get', 'put', 'post', 'patch', 'delete']).toContain(method);
        expect(Object.keys(op.responses ?? {}).length, `${method} ${path}`).toBeGreaterThan(0);
        const inPath = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
        expect(inPath.sort(), `${method} ${path}`).toEqual([...templated].sort());
      }
    }
    // Generated from the schemas: the list query's enums and the licence response come from the route code.
    const query = doc.paths['/svc/pipeline'].get.parameters.filter((p: any) => p.in === 'query');
    expect(query.find((p: any) => p.name === 'state').schema.enum).toEqual(['ready', 'playing']);
    expect(query.find((p: any) => p.name === 'mode').schema.enum).toEqual(['simple', 'multiview', 'advanced']);
    expect(doc.paths['/svc/licence'].get.responses['200'].content['application/json'].schema.type).toBe('object');
    // Public endpoints need no token; the rest use the bearer scheme.
    expect(doc.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/svc/health'].get.security).toEqual([]);
    expect(doc.paths['/svc/pipeline'].post.security).toBeUndefined();
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.servers[0].url).toBe('/');
    expect(doc.servers[1].url).toBe(`https://127.0.0.1:${svc.port}`);
  });

  it('forwards "try it out" calls to the API, but not for a foreign Host name', async () => {
    const health = await get(port, '/svc/health');
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('ok');
    const missing = await get(port, '/svc/pipeline/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual((await svc.api('GET', '/svc/pipeline/nope')).body);
    const rebound = await get(port, '/svc/health', { host: 'attacker.example:38081' });
    expect(rebound.status).toBe(400);
  });
});
