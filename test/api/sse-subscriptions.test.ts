/**
 * SSE streams give back their subscriptions (issue 16): a stream the client closes and a HEAD request that gets only
 * the headers leave the pipeline events' listeners and the camera monitor's at their start value. Each listener
 * holds its stream's response, so one left behind per request stays for the life of the service. (HEAD of an SSE
 * route subscribed and never unsubscribed until 2026-11-25; the three SSE routes share core/http/sse.ts.)
 */
import { request, type ClientRequest } from 'node:http';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devices } from '../../core/devices';
import { PipelineEvents } from '../../core/events/pipeline-events';
import { buildServer } from '../../core/http/server';
import { eventRoutes } from '../../core/http/routes/events';
import type { PipelineManager } from '../../core/pipeline/manager';
import { waitFor } from '../helpers/service';

const events = new PipelineEvents();
const cameraListeners = new Set<() => void>();
const cameras = {
  subscribe(fn: () => void) {
    cameraListeners.add(fn);
    return () => cameraListeners.delete(fn);
  },
  list: () => [],
};
const app = buildServer({ logger: pino({ level: 'silent' }), bodyLimit: 1024 });
eventRoutes(app, { manager: { list: () => [] } as unknown as PipelineManager, events, devices: { cameras } as unknown as Devices });
let port = 0;

beforeAll(async () => {
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
});
afterAll(() => app.close());

const counts = () => ({ pipelines: events.subscribers(), cameras: cameraListeners.size });

/** Opens the stream; resolves once its headers (and, for GET, the first comment) arrived. */
function open(method: 'GET' | 'HEAD'): Promise<{ req: ClientRequest; status: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/svc/events', method }, (res) => {
      if (method === 'HEAD') {
        res.resume();
        res.on('end', () => resolve({ req, status: res.statusCode ?? 0 }));
      } else res.once('data', () => resolve({ req, status: res.statusCode ?? 0 }));
    });
    req.on('error', (err) => { if (!req.destroyed) reject(err); });
    req.end();
  });
}

describe('SSE subscriptions end with their streams', () => {
  it('streams the client closes unsubscribe', async () => {
    const start = counts();
    for (let i = 0; i < 20; i++) {
      const { req, status } = await open('GET');
      expect(status).toBe(200);
      expect(counts().pipelines).toBe(start.pipelines + 1);
      req.destroy();
      await waitFor(() => counts().pipelines === start.pipelines, 5000, 10);
    }
    expect(counts()).toEqual(start);
  });

  it('HEAD requests answer the headers and keep no subscription', async () => {
    const start = counts();
    for (let i = 0; i < 20; i++) {
      const { status } = await open('HEAD');
      expect(status).toBe(200);
    }
    expect(counts()).toEqual(start);
  });
});
