/**
 * Webhook delivery from the real service to real HTTP subscribers (Node servers on 127.0.0.1): payloads and
 * headers, event filtering, failures logged and never retried or unsubscribed, the 5-second timeout, and that
 * no subscriber — one that never answers, or 50 slow ones — delays an API response.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, h264Body, sleep, startService, waitFor, type RunningService } from '../helpers/service';

const SECRET = 'Bearer whk-9c1e-never-log-me';

interface Received {
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
  at: number;
  /** When the client gave up on the request (aborted), if it did. */
  abortedAt?: number;
}

type Behaviour = { kind: 'ok' } | { kind: 'status'; status: number } | { kind: 'slow'; ms: number } | { kind: 'never' };

interface Subscriber {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

async function subscriber(behaviour: Behaviour): Promise<Subscriber> {
  const received: Received[] = [];
  const open = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: Received = { url: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), at: Date.now() };
      received.push(rec);
      res.on('close', () => { if (!res.writableEnded) rec.abortedAt = Date.now(); });
      open.add(res);
      if (behaviour.kind === 'ok') res.writeHead(204).end();
      else if (behaviour.kind === 'status') res.writeHead(behaviour.status).end('no');
      else if (behaviour.kind === 'slow') setTimeout(() => res.writeHead(200).end(), behaviour.ms);
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => new Promise((r) => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

describe('webhook delivery', () => {
  let svc: RunningService;
  const subs: Subscriber[] = [];
  const outDir = mkdtempSync(join(tmpdir(), 'webhook-out-'));

  const sub = async (b: Behaviour) => {
    const s = await subscriber(b);
    subs.push(s);
    return s;
  };
  const register = async (url: string, events: string[], headers?: Record<string, string>) => {
    const r = await svc.api('POST', '/svc/webhooks', { url, events, ...(headers ? { headers } : {}) });
    expect(r.status).toBe(201);
    return r.body.id as string;
  };
  const timed = async (method: string, path: string, body?: unknown) => {
    const t0 = Date.now();
    const r = await svc.api(method, path, body);
    return { r, ms: Date.now() - t0, sentAt: t0 };
  };

  beforeAll(async () => {
    svc = await startService();
  });
  afterEach(async () => {
    for (const w of (await svc.api('GET', '/svc/webhooks')).body) await svc.api('DELETE', `/svc/webhooks/${w.id}`);
  });
  afterAll(async () => {
    await svc?.stop();
    await Promise.all(subs.map((s) => s.close()));
  });

  it('POSTs the spec payload with the registered headers to every matching subscriber; failures are logged only', async () => {
    const both = await sub({ kind: 'ok' });
    const stopOnly = await sub({ kind: 'ok' });
    const failing = await sub({ kind: 'status', status: 500 });
    const deadPort = await freePort(); // nothing listens: unreachable
    const bothId = await register(both.url, ['pipeline.started', 'pipeline.stopped'], { Authorization: SECRET, 'X-Trace': 'trace-1' });
    await register(stopOnly.url, ['pipeline.stopped']);
    const failingId = await register(failing.url, ['pipeline.started']);
    const deadId = await register(`http://127.0.0.1:${deadPort}/hook`, ['pipeline.started']);

    const output = join(outDir, 'payload.ts');
    const created = await svc.api('POST', '/svc/pipeline', h264Body('wh-payload', output));
    expect(created.status).toBe(201);
    expect(created.body.state).toBe('playing');

    await waitFor(() => both.received.length === 1 && failing.received.length === 1);
    const started = both.received[0];
    expect(started.headers['content-type']).toBe('application/json');
    expect(started.headers.authorization).toBe(SECRET);
    expect(started.headers['x-trace']).toBe('trace-1');
    expect(started.body).toEqual({
      event: 'pipeline.started',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      pipeline: { id: 'wh-payload', name: 'wh-payload', state: 'playing', output_url: output },
    });
    expect(Math.abs(Date.parse(started.body.timestamp) - started.at)).toBeLessThan(5000);
    expect(failing.received[0].headers.authorization).toBeUndefined(); // headers belong to their own subscriber
    expect(stopOnly.received).toEqual([]); // not subscribed to started

    const stopped = await svc.api('PUT', '/svc/pipeline/wh-payload/stop');
    expect(stopped.body.state).toBe('ready');
    await waitFor(() => both.received.length === 2 && stopOnly.received.length === 1);
    for (const s of [both.received[1], stopOnly.received[0]]) {
      expect(s.body).toMatchObject({ event: 'pipeline.stopped', pipeline: { id: 'wh-payload', name: 'wh-payload', state: 'stopped', output_url: output } });
    }
    expect(failing.received).toHaveLength(1); // no retry, and not subscribed to stopped

    // Failures are logged with the webhook and the reason; the subscribers stay registered; no header is logged.
    await waitFor(() => svc.logs().includes(failingId) && svc.logs().includes(deadId));
    const lines = svc.logs().split('\n').filter((l) => l.includes('webhook delivery failed'));
    expect(lines.find((l) => l.includes(failingId))).toContain('"status":500');
    expect(lines.find((l) => l.includes(deadId))).toContain('ECONNREFUSED');
    expect((await svc.api('GET', '/svc/webhooks')).body.map((w: { id: string }) => w.id)).toContain(failingId);
    expect(svc.logs()).not.toContain('whk-9c1e');
    expect(svc.logs()).not.toContain('trace-1');
    expect(bothId).toBeTruthy();
    expect((await svc.api('DELETE', '/svc/pipeline/wh-payload')).status).toBe(204);
  });

  it('a subscriber that never answers and 49 slow ones delay no API response; all 50 are called in parallel; the silent one is cut off at 5 s', async () => {
    const output = join(outDir, 'slow.ts');
    expect((await svc.api('POST', '/svc/pipeline', h264Body('wh-slow', output))).status).toBe(201);
    expect((await svc.api('PUT', '/svc/pipeline/wh-slow/stop')).status).toBe(200);

    // Baseline without subscribers, on the same pipeline.
    const basePlay = await timed('PUT', '/svc/pipeline/wh-slow/play');
    const baseStop = await timed('PUT', '/svc/pipeline/wh-slow/stop');
    expect(basePlay.r.status).toBe(200);

    const never = await sub({ kind: 'never' });
    const slow = await Promise.all(Array.from({ length: 49 }, () => sub({ kind: 'slow', ms: 4500 })));
    const neverId = await register(never.url, ['pipeline.started', 'pipeline.stopped']);
    for (const s of slow) await register(s.url, ['pipeline.started', 'pipeline.stopped']);

    const play = await timed('PUT', '/svc/pipeline/wh-slow/play');
    expect(play.r.status).toBe(200);
    expect(play.r.body.state).toBe('playing');
    const health = await timed('GET', '/svc/health');
    const stop = await timed('PUT', '/svc/pipeline/wh-slow/stop');
    expect(stop.r.status).toBe(200);
    expect(stop.r.body.state).toBe('ready');

    // Waiting for any one subscriber would cost 4.5 s (or 5 s); waiting for them in turn, minutes.
    expect(play.ms).toBeLessThan(basePlay.ms + 1000);
    expect(stop.ms).toBeLessThan(baseStop.ms + 1000);
    expect(health.ms).toBeLessThan(1000);

    // Every subscriber got pipeline.started, all within a moment of each other (parallel, not in turn).
    const all = [never, ...slow];
    await waitFor(() => all.every((s) => s.received.length >= 1), 5000);
    const startedAt = all.map((s) => s.received[0].at);
    expect(Math.max(...startedAt) - Math.min(...startedAt)).toBeLessThan(1500);
    expect(all.every((s) => s.received[0].body.event === 'pipeline.started')).toBe(true);
    await waitFor(() => all.every((s) => s.received.length === 2), 5000);

    // The silent subscriber is given up on after the 5-second timeout, and that is logged.
    await waitFor(() => never.received.every((r) => r.abortedAt !== undefined), 9000);
    // Measured from when the request that caused each delivery was sent: the service's 5 s clock starts after that,
    // while the subscriber may see the request late on a loaded machine (its own arrival time is no lower bound).
    const causes = [play.sentAt, stop.sentAt];
    never.received.forEach((r, i) => {
      expect(r.abortedAt! - causes[i]).toBeGreaterThanOrEqual(4900);
      expect(r.abortedAt! - r.at).toBeLessThan(7000);
    });
    await waitFor(() => svc.logs().split('\n').some((l) => l.includes(neverId) && l.includes('no answer within 5000 ms')), 3000);
    // The slow ones answered in time: no failure logged for them.
    await sleep(500);
    const failed = svc.logs().split('\n').filter((l) => l.includes('webhook delivery failed') && !l.includes(neverId) && l.includes('wh-slow'));
    expect(failed).toEqual([]);
    expect((await svc.api('DELETE', '/svc/pipeline/wh-slow')).status).toBe(204);
  }, 60_000);

  it('pipelines stopped by a service shutdown still notify pipeline.stopped before the process exits', async () => {
    const hook = await sub({ kind: 'ok' });
    await register(hook.url, ['pipeline.stopped']);
    expect((await svc.api('POST', '/svc/pipeline', h264Body('wh-shutdown', join(outDir, 'shutdown.ts')))).status).toBe(201);
    expect(await svc.stop()).toBe(0);
    expect(hook.received.map((r) => [r.body.event, r.body.pipeline.id])).toEqual([['pipeline.stopped', 'wh-shutdown']]);
    svc = await startService({ dataDir: svc.dataDir });
  });
});
