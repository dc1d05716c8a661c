/** The Fastify app's own failures in the spec's body: a request that arrives while the server closes. */
import { get } from 'node:http';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { buildServer } from '../../core/http/server';

function fetchText(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

describe('buildServer', () => {
  it('answers a request that arrives while the server closes with the spec\'s 503 body, not Fastify\'s', async () => {
    const app = buildServer({ logger: pino({ level: 'silent' }), bodyLimit: 1024 });
    app.get('/svc/x', async () => ({ ok: true }));
    let during: { status: number; body: string } | undefined;
    // Runs after the server's own preClose hook, while it still listens: a request arriving mid-close.
    app.addHook('preClose', async () => {
      during = await fetchText(port, '/svc/x');
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    expect((await fetchText(port, '/svc/x')).status).toBe(200);
    await app.close();
    expect(during?.status).toBe(503);
    expect(JSON.parse(during!.body)).toEqual({ code: 'ENGINE_UNAVAILABLE', message: 'the service is shutting down' });
  });
});
