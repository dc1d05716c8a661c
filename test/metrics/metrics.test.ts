/**
 * GET /svc/metrics on the real service over HTTPS, with a real pipeline (test source → H.264 → UDP) and its
 * engine host: the per-pipeline series and their labels, the engine host's CPU and memory, request durations by
 * route pattern, SSE subscribers, webhook deliveries; the output passes `promtool check metrics`; and the
 * endpoint is behind the password like every other.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { find, one, parseExposition, type Sample } from '../helpers/exposition';
import { freePort, h264Body, startService, waitFor, type RunningService } from '../helpers/service';
import { openSse, type SseClient } from '../helpers/sse';

const PIPELINE = { pipeline: 'm1', mode: 'simple', codec: 'h264', output: 'udp' };
/** Each stats-dependent family with the field of the pipeline's `stats` it comes from (null: no series). */
const STATS_FAMILIES: Array<[string, (stats: any) => unknown]> = [
  ['encoderd_pipeline_uptime_seconds', (s) => s.uptime_s],
  ['encoderd_pipeline_output_frames_total', (s) => s.output.frames],
  ['encoderd_pipeline_output_bytes_total', (s) => s.output.bytes],
  ['encoderd_pipeline_output_frames_per_second', (s) => s.output.fps],
  ['encoderd_pipeline_output_bytes_per_second', (s) => s.output.bitrate_kbps],
  ['encoderd_pipeline_source_frames_total', (s) => s.source?.frames],
  ['encoderd_pipeline_source_frames_per_second', (s) => s.source?.fps],
  ['encoderd_pipeline_dropped_frames_total', (s) => s.dropped_frames],
  ['encoderd_pipeline_rate_dropped_frames_total', (s) => s.rate_adjusted?.dropped],
  ['encoderd_pipeline_rate_duplicated_frames_total', (s) => s.rate_adjusted?.duplicated],
  ['encoderd_pipeline_latency_seconds', (s) => s.latency_ms],
];

/** An HTTP receiver on 127.0.0.1 answering every POST with one status. */
async function hookReceiver(status: number): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status).end());
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${port}/hook`, server };
}

describe('GET /svc/metrics', () => {
  let svc: RunningService;
  const servers: Server[] = [];
  let sse: SseClient | undefined;

  const scrape = async (): Promise<{ text: string; samples: Sample[] }> => {
    const r = await svc.api('GET', '/svc/metrics');
    expect(r.status).toBe(200);
    return { text: r.text, samples: parseExposition(r.text) };
  };

  beforeAll(async () => {
    svc = await startService();
    // Three subscribers to pipeline.started: one accepts, one answers 500, one is not there.
    const ok = await hookReceiver(204);
    const failing = await hookReceiver(500);
    servers.push(ok.server, failing.server);
    for (const url of [ok.url, failing.url, `http://127.0.0.1:${await freePort()}/hook`]) {
      expect((await svc.api('POST', '/svc/webhooks', { url, events: ['pipeline.started'] })).status).toBe(201);
    }
    const udpPort = await freePort();
    const body = { ...h264Body('m1', `udp://127.0.0.1:${udpPort}`), encoding: { codec: 'h264', bitrate: 500, width: 320, height: 240, fps: 15 } };
    expect((await svc.api('POST', '/svc/pipeline', body)).status).toBe(201);
    await waitFor(async () => (await svc.api('GET', '/svc/pipeline/m1')).body.state === 'playing', 20000);
  });

  afterAll(async () => {
    sse?.close();
    await svc?.stop();
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
  });

  it('answers the text exposition format with prom-client\'s content type', async () => {
    const r = await svc.api('GET', '/svc/metrics');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(r.text).toMatch(/^# HELP /);
  });

  it('has the playing pipeline\'s state, health and counters, labelled pipeline, mode, codec and output', async () => {
    const { samples } = await scrape();
    expect(one(samples, 'encoderd_pipeline_playing', PIPELINE)?.value).toBe(1);
    const health = find(samples, 'encoderd_pipeline_health', PIPELINE);
    expect(health.map((s) => s.labels.health).sort()).toEqual(['degraded', 'failing', 'ok']);
    expect(health.filter((s) => s.value === 1)).toHaveLength(1);
    for (const name of ['encoderd_pipeline_host_restarts_total', 'encoderd_pipeline_source_reconnects_total', 'encoderd_pipeline_errors_total']) {
      expect(one(samples, name, PIPELINE)?.value, name).toBeGreaterThanOrEqual(0);
    }
    // What is measured while playing has a series whenever the pipeline's stats carry the figure (the engine
    // host measures them; where it does not, or not yet, stats are null and these families have no series).
    const stats = (await svc.api('GET', '/svc/pipeline/m1')).body.stats;
    if (stats) {
      const withStats = (await scrape()).samples;
      for (const [name, field] of STATS_FAMILIES) {
        if (field(stats) !== null && field(stats) !== undefined) expect(one(withStats, name, PIPELINE)?.value, name).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it('has the engine host: running, its CPU seconds and its resident memory; and the API process\'s own', async () => {
    const { samples } = await scrape();
    expect(one(samples, 'encoderd_engine_hosts_running')?.value).toBe(1);
    expect(one(samples, 'encoderd_engine_host_resident_memory_bytes', { pipeline: 'm1' })?.value).toBeGreaterThan(1024 * 1024);
    expect(one(samples, 'encoderd_engine_host_cpu_seconds_total', { pipeline: 'm1' })?.value).toBeGreaterThanOrEqual(0);
    expect(one(samples, 'process_cpu_seconds_total')?.value).toBeGreaterThan(0);
    expect(one(samples, 'process_resident_memory_bytes')?.value).toBeGreaterThan(1024 * 1024);
  });

  it('counts webhook deliveries by result', async () => {
    await waitFor(async () => {
      const { samples } = await scrape();
      const n = (result: string) => one(samples, 'encoderd_webhook_deliveries_total', { result })?.value;
      return n('delivered') === 1 && n('failed_status') === 1 && n('failed_error') === 1 && n('failed_timeout') === 0;
    }, 10000);
  });

  it('times requests by route pattern and status, never by URL; an unmatched path is "unmatched"', async () => {
    expect((await svc.api('GET', '/svc/pipeline/m1')).status).toBe(200);
    expect((await svc.api('GET', '/svc/pipeline/no-such')).status).toBe(404);
    expect((await svc.api('GET', '/svc/no/such/route')).status).toBe(404);
    const { samples } = await scrape();
    const count = (labels: Record<string, string>) => one(samples, 'encoderd_http_request_duration_seconds_count', labels)?.value ?? 0;
    expect(count({ method: 'GET', route: '/svc/pipeline/:id', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(count({ method: 'GET', route: '/svc/pipeline/:id', status: '404' })).toBe(1);
    expect(count({ method: 'POST', route: '/svc/pipeline', status: '201' })).toBe(1);
    expect(count({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    const routes = new Set(find(samples, 'encoderd_http_request_duration_seconds_count').map((s) => s.labels.route));
    expect([...routes].filter((r) => r.includes('m1') || r.includes('no-such'))).toEqual([]);
    expect(one(samples, 'encoderd_http_request_duration_seconds_bucket', { method: 'POST', route: '/svc/pipeline', status: '201', le: '+Inf' })?.value).toBe(1);
  });

  it('counts SSE subscribers while open, and leaves their streams out of the request durations', async () => {
    const route = '/svc/pipeline/:id/status/events';
    sse = await openSse(svc.port, '/svc/pipeline/m1/status/events');
    await sse.next((e) => e.event === 'pipeline_status');
    let { samples } = await scrape();
    expect(one(samples, 'encoderd_sse_subscribers', { route })?.value).toBe(1);
    expect(one(samples, 'encoderd_sse_subscriptions_total', { route })?.value).toBe(1);
    sse.close();
    samples = await waitFor(async () => {
      const s = (await scrape()).samples;
      return one(s, 'encoderd_sse_subscribers', { route })?.value === 0 ? s : null;
    });
    expect(find(samples, 'encoderd_http_request_duration_seconds_count', { route })).toEqual([]);
  });

  it('passes promtool check metrics with no problem', async () => {
    const { text } = await scrape();
    const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(r.error).toBeUndefined();
    expect(`${r.stdout}${r.stderr}`.trim()).toBe('');
    expect(r.status).toBe(0);
  });

  it('after stop: playing 0 and no stats series; after delete: no series of the pipeline at all', async () => {
    expect((await svc.api('PUT', '/svc/pipeline/m1/stop')).body.state).toBe('ready');
    let { samples } = await scrape();
    expect(one(samples, 'encoderd_pipeline_playing', PIPELINE)?.value).toBe(0);
    for (const [name] of STATS_FAMILIES) expect(find(samples, name, PIPELINE), name).toEqual([]);
    expect((await svc.api('DELETE', '/svc/pipeline/m1')).status).toBeLessThan(300);
    ({ samples } = await scrape());
    expect(samples.filter((s) => s.labels.pipeline === 'm1')).toEqual([]);
    expect(one(samples, 'encoderd_engine_hosts_running')?.value).toBe(0);
  });
});

describe('GET /svc/metrics with a password set', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService();
    expect((await svc.api('PUT', '/svc/auth/password', { password: 'metrics behind the gate' })).status).toBe(200);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('answers 401 without a token, 200 with a session token or an API key', async () => {
    const refused = await svc.api('GET', '/svc/metrics');
    expect(refused.status).toBe(401);
    expect(refused.text).not.toContain('encoderd_');
    const token = (await svc.api('POST', '/svc/auth/login', { password: 'metrics behind the gate' })).body.token as string;
    const r = await svc.api('GET', '/svc/metrics', undefined, { token });
    expect(r.status).toBe(200);
    expect(r.text).toContain('encoderd_engine_hosts_running 0');
    const key = (await svc.api('POST', '/svc/auth/keys', { name: 'prometheus' }, { token })).body.key as string;
    expect((await svc.api('GET', '/svc/metrics', undefined, { token: key })).status).toBe(200);
  });
});
