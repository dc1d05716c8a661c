/**
 * Statistics measured at the data plane, checked against real receivers, and health judged from them: a UDP
 * receiver's socket counts the bytes the stats claim; the failing cases of the issue show `failing` within 5 s.
 */
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, h264Body, run, startService, waitFor, type RunningService } from '../helpers/service';
import { openSse } from '../helpers/sse';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

const auth = () => ({});

describe('statistics against a real receiver', () => {
  it('UDP: bytes within 10 % of what the receiving socket counts, fps within 1 of the configured rate', async () => {
    const port = await freePort();
    const sock = createSocket('udp4');
    let received = 0;
    sock.on('message', (m) => { received += m.length; });
    await new Promise<void>((r) => sock.bind(port, '127.0.0.1', () => r()));
    const body = h264Body('st-udp', `udp://127.0.0.1:${port}`, { encoding: { codec: 'h264', bitrate: 800, width: 320, height: 240, fps: 15 } });
    expect((await svc.api('POST', '/svc/pipeline', body)).status).toBe(201);
    const sse = await openSse(svc.port, '/svc/pipeline/st-udp/status/events?stats=true', auth());
    try {
      // Two stats events four seconds apart, each read beside the socket's count at the moment it arrived.
      const marks: Array<{ bytes: number; socket: number; fps: number }> = [];
      const onStats = () => new Promise<void>((resolve) => {
        const seen = sse.events.length;
        const timer = setInterval(() => {
          const ev = sse.events.slice(seen).find((e) => e.event === 'pipeline_stats');
          if (!ev) return;
          clearInterval(timer);
          marks.push({ bytes: ev.data.output.bytes, socket: received, fps: ev.data.output.fps });
          resolve();
        }, 5);
      });
      await waitFor(() => sse.events.filter((e) => e.event === 'pipeline_stats').length >= 3, 10000);
      await onStats();
      await new Promise((r) => setTimeout(r, 4000));
      await onStats();
      const [a, b] = marks;
      const claimed = b.bytes - a.bytes;
      const counted = b.socket - a.socket;
      // x264 undershoots its target on a simple test picture: ~150 kbit/s here; the comparison is what matters.
      expect(counted).toBeGreaterThan(20_000);
      expect(Math.abs(claimed - counted) / counted).toBeLessThan(0.1);
      expect(Math.abs(b.fps - 15)).toBeLessThanOrEqual(1);

      const stats = (await svc.api('GET', '/svc/pipeline/st-udp/stats')).body;
      expect(stats.state).toBe('playing');
      expect(stats.health).toBe('ok');
      expect(stats.stats.output.bitrate_kbps_avg).toBeGreaterThan(40);
      expect(stats.stats.source.frames).toBeGreaterThan(0);
      expect(stats.stats.latency_ms).toBeGreaterThan(0);
      expect(stats.stats.dropped_frames).toBe(0);
      expect(stats.stats.ipc_dropped).toBe(0);
      expect(stats.stats.host_restarts).toBe(0);
      const view = (await svc.api('GET', '/svc/pipeline/st-udp')).body;
      expect(view.health).toBe('ok');
      expect(view.stats.output.frames).toBeGreaterThan(0);

      expect((await svc.api('PUT', '/svc/pipeline/st-udp/stop')).body.stats).toBeNull();
      expect((await svc.api('GET', '/svc/pipeline/st-udp/stats')).body.stats).toBeNull();
    } finally {
      sse.close();
      sock.close();
    }
  });

  it('watchers that do not ask for stats see only the spec\'s events', async () => {
    const port = await freePort();
    expect((await svc.api('POST', '/svc/pipeline', h264Body('st-plain', `udp://127.0.0.1:${port}`))).status).toBe(201);
    const plain = await openSse(svc.port, '/svc/pipeline/st-plain/status/events', auth());
    const withStats = await openSse(svc.port, '/svc/pipeline/st-plain/status/events?stats=true', auth());
    try {
      await withStats.next((e) => e.event === 'pipeline_stats', 10000);
      await waitFor(() => withStats.events.filter((e) => e.event === 'pipeline_stats').length >= 3, 10000);
      expect(plain.events.map((e) => e.event).every((n) => ['pipeline_status', 'pipeline_error', 'pipeline_not_found'].includes(n))).toBe(true);
      const ev = withStats.events.find((e) => e.event === 'pipeline_stats')!;
      expect(ev.data.pipeline_id).toBe('st-plain');
      expect(typeof ev.data.uptime_s).toBe('number');
    } finally {
      plain.close();
      withStats.close();
      await svc.api('PUT', '/svc/pipeline/st-plain/stop');
    }
  });
});

describe('statistics of other shapes', () => {
  it('multiview: each input\'s fps and whether it is live; the composed picture as the source', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'encoderd-mv-'));
    const body = {
      id: 'st-mv', mode: 'multiview', inputs: [{ source: { uri: 'test://red' } }, { source: { uri: 'test://green' } }],
      encoding: { bitrate: 300, width: 320, height: 240, fps: 10 }, output: { uri: join(dir, 'mv.mkv') },
    };
    expect((await svc.api('POST', '/svc/pipeline', body)).status).toBe(201);
    const stats = await waitFor(async () => {
      const s = (await svc.api('GET', '/svc/pipeline/st-mv/stats')).body.stats;
      return s?.inputs?.every((i: { fps: number }) => i.fps > 0) && s.output.fps !== null ? s : undefined;
    }, 15000, 200);
    expect(stats.inputs).toHaveLength(2);
    for (const input of stats.inputs) expect(input.live).toBe(true);
    expect(stats.source.frames).toBeGreaterThan(0);
    expect(stats.rate_adjusted).toBeNull();
    await svc.api('PUT', '/svc/pipeline/st-mv/stop');
    rmSync(dir, { recursive: true, force: true });
  });

  it('local RTSP output: the clients connected, as a real rtspsrc joins and leaves', async () => {
    const port = await freePort();
    expect((await svc.api('POST', '/svc/pipeline', h264Body('st-rtsp', `rtsp://127.0.0.1:${port}/s`))).status).toBe(201);
    expect((await svc.api('GET', '/svc/pipeline/st-rtsp/stats')).body.stats.rtsp_clients).toBe(0);
    const client = spawn('gst-launch-1.0', ['-q', 'rtspsrc', `location=rtsp://127.0.0.1:${port}/s`, 'latency=100', '!', 'fakesink'], { stdio: 'ignore' });
    try {
      await waitFor(async () => (await svc.api('GET', '/svc/pipeline/st-rtsp/stats')).body.stats.rtsp_clients === 1, 10000, 200);
    } finally {
      client.kill('SIGKILL');
    }
    await waitFor(async () => (await svc.api('GET', '/svc/pipeline/st-rtsp/stats')).body.stats.rtsp_clients === 0, 30000, 200);
    await svc.api('PUT', '/svc/pipeline/st-rtsp/stop');
  });

  it('local RTSP output: the RTSP server\'s dropped events, 0 in the stats and in its metric', async () => {
    const port = await freePort();
    expect((await svc.api('POST', '/svc/pipeline', h264Body('st-rtsp-drops', `rtsp://127.0.0.1:${port}/s`))).status).toBe(201);
    const stats = await waitFor(async () => {
      const s = (await svc.api('GET', '/svc/pipeline/st-rtsp-drops/stats')).body.stats;
      return s && 'service_events_dropped' in s ? s : undefined;
    }, 10000, 200);
    expect(stats.service_events_dropped).toBe(0);
    const metrics = (await svc.api('GET', '/svc/metrics')).text;
    expect(metrics).toMatch(/^encoderd_pipeline_service_events_dropped_total\{pipeline="st-rtsp-drops"[^}]*\} 0$/m);
    expect(metrics).toMatch(/^encoderd_camera_events_dropped_total 0$/m);
    await svc.api('PUT', '/svc/pipeline/st-rtsp-drops/stop');
  });
});

describe('health: failing within 5 s', () => {
  const failingWithin = async (id: string, ms: number) => {
    const started = Date.now();
    const view = await waitFor(async () => {
      const v = (await svc.api('GET', `/svc/pipeline/${id}`)).body;
      return v.health === 'failing' ? v : undefined;
    }, ms, 100);
    return { view, ms: Date.now() - started };
  };

  it('an output directory removed under a recording', async () => {
    const dir = join(tmpdir(), `encoderd-rec-${process.pid}-${Date.now()}`);
    mkdirSync(dir);
    const body = h264Body('st-rec', join(dir, 'rec.ts'), { encoding: { codec: 'h264', bitrate: 500, width: 320, height: 240, fps: 15 } });
    expect((await svc.api('POST', '/svc/pipeline', body)).status).toBe(201);
    await waitFor(async () => (await svc.api('GET', '/svc/pipeline/st-rec')).body.stats?.output.bytes > 0, 10000);
    expect((await svc.api('GET', '/svc/pipeline/st-rec')).body.health).toBe('ok');
    rmSync(dir, { recursive: true, force: true });
    const { view } = await failingWithin('st-rec', 5000);
    expect(view.health_reason).toBeTruthy();
    expect((await svc.api('GET', '/svc/health')).body.pipelines.failing).toBeGreaterThanOrEqual(1);
    await svc.api('PUT', '/svc/pipeline/st-rec/stop');
    expect((await svc.api('GET', '/svc/pipeline/st-rec')).body.health).toBe('ok');
  });

  it('a source that never delivers', async () => {
    const silent = await freePort();
    const out = await freePort();
    const body = h264Body('st-silent', `udp://127.0.0.1:${out}`, { source: { uri: `udp://127.0.0.1:${silent}` } });
    const created = svc.api('POST', '/svc/pipeline', body);
    await waitFor(async () => (await svc.api('GET', '/svc/pipeline/st-silent')).status === 200, 5000, 50);
    const { view } = await failingWithin('st-silent', 5000);
    expect(view.state).toBe('ready');
    expect(view.health_reason).toMatch(/nothing has reached the output/);
    // The start gives up (504); health stays failing, with the start's failure as its reason.
    expect((await created).status).toBe(504);
    const after = (await svc.api('GET', '/svc/pipeline/st-silent')).body;
    expect(after.health).toBe('failing');
    expect(after.health_reason).toMatch(/did not start/);
  });

  it('a muxer that errors, with the muxer\'s error as its reason', async () => {
    // A raw H.264 elementary stream has no timestamps: mp4mux refuses it ("Could not multiplex stream.") every time
    // it runs, and the supervisor restarts it with backoff.
    const dir = mkdtempSync(join(tmpdir(), 'encoderd-mux-'));
    const raw = join(dir, 'raw.h264');
    const made = await run('gst-launch-1.0', ['-q', 'videotestsrc', 'num-buffers=30', '!', 'video/x-raw,width=320,height=240', '!', 'x264enc', '!',
      'video/x-h264,stream-format=byte-stream', '!', 'filesink', `location=${raw}`]);
    expect(made.code, made.stderr).toBe(0);
    const body = { id: 'st-mux', mode: 'advanced', raw_pipeline: `filesrc location=${raw} ! h264parse ! mp4mux ! filesink location=${join(dir, 'out.mp4')}` };
    const started = Date.now();
    const created = svc.api('POST', '/svc/pipeline', body);
    await waitFor(async () => (await svc.api('GET', '/svc/pipeline/st-mux')).status === 200, 5000, 50);
    const { view } = await failingWithin('st-mux', 5000 - (Date.now() - started));
    expect(view.health_reason).toContain('Could not multiplex stream');
    await created;
    const health = (await svc.api('GET', '/svc/health')).body;
    expect(health.pipelines.failing).toBeGreaterThanOrEqual(1);
    await svc.api('PUT', '/svc/pipeline/st-mux/stop');
    const stopped = (await svc.api('GET', '/svc/pipeline/st-mux')).body;
    expect(stopped.health).toBe('ok');
    rmSync(dir, { recursive: true, force: true });
  });
});
