/**
 * A real Prometheus (Debian's `prometheus` package) scrapes the real service over HTTPS with an API key, as
 * docs/metrics.md tells an operator to configure it, and answers queries on what it stored. It runs on its own
 * free port with its own configuration and storage, so a packaged prometheus service that may be running on
 * :9090 (the package's postinst starts one where systemd runs) is neither used nor disturbed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, h264Body, startService, waitFor, type RunningService } from '../helpers/service';

const PASSWORD = 'scraped by prometheus';

let svc: RunningService | undefined;
let prometheus: ChildProcess | undefined;
let prometheusLog = '';
let promPort = 0;
const dir = mkdtempSync(join(tmpdir(), 'encoderd-prometheus-'));

/** GET on Prometheus's own HTTP API (plain HTTP on 127.0.0.1). */
function promGet(path: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: promPort, path, method: 'GET' }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => {
        let body: unknown = text;
        try { body = JSON.parse(text); } catch { /* /-/ready answers text */ }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The result vector of an instant query, once it has at least one sample. */
async function queryUntilResult(query: string, timeoutMs = 30000): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  return waitFor(async () => {
    const r = await promGet(`/api/v1/query?query=${encodeURIComponent(query)}`);
    return r.status === 200 && r.body.status === 'success' && r.body.data.result.length > 0 ? r.body.data.result : null;
  }, timeoutMs, 250).catch((err: Error) => {
    throw new Error(`${err.message}: no result for ${query}\n${prometheusLog.slice(-3000)}`);
  });
}

beforeAll(async () => {
  svc = await startService();
  expect((await svc.api('PUT', '/svc/auth/password', { password: PASSWORD })).status).toBe(200);
  const session = (await svc.api('POST', '/svc/auth/login', { password: PASSWORD })).body.token as string;
  const created = await svc.api('POST', '/svc/auth/keys', { name: 'prometheus' }, { token: session });
  expect(created.status).toBe(201);
  const udpPort = await freePort();
  const body = { ...h264Body('px', `udp://127.0.0.1:${udpPort}`), encoding: { codec: 'h264', bitrate: 500, width: 320, height: 240, fps: 15 } };
  expect((await svc.api('POST', '/svc/pipeline', body, { token: session })).status).toBe(201);

  // JSON is YAML: the configuration docs/metrics.md shows, with this service as the target.
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    scrape_configs: [{
      job_name: 'encoderd',
      scheme: 'https',
      metrics_path: '/svc/metrics',
      scrape_interval: '1s',
      tls_config: { insecure_skip_verify: true },
      authorization: { credentials: created.body.key as string },
      static_configs: [{ targets: [`127.0.0.1:${svc.port}`] }],
    }],
  };
  writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify(config, null, 2));
  promPort = await freePort();
  prometheus = spawn('prometheus', [
    `--config.file=${join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${promPort}`,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  prometheus.stdout?.on('data', (d: Buffer) => { prometheusLog += d.toString(); });
  prometheus.stderr?.on('data', (d: Buffer) => { prometheusLog += d.toString(); });
  const spawnFailed = new Promise<never>((_, reject) => prometheus?.on('error', reject));
  await Promise.race([spawnFailed, waitFor(async () => (await promGet('/-/ready')).status === 200, 20000, 100)]).catch((err: Error) => {
    throw new Error(`prometheus did not become ready: ${err.message}\n${prometheusLog}`);
  });
}, 60000);

afterAll(async () => {
  if (prometheus && prometheus.exitCode === null && prometheus.signalCode === null) {
    const exited = new Promise((r) => prometheus?.once('exit', r));
    prometheus.kill('SIGTERM');
    const timer = setTimeout(() => prometheus?.kill('SIGKILL'), 10000);
    await exited;
    clearTimeout(timer);
  }
  await svc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('scrapes the service with an API key and answers queries on the pipeline\'s series', async () => {
  const playing = await queryUntilResult('encoderd_pipeline_playing{pipeline="px"} == 1');
  expect(playing).toHaveLength(1);
  expect(playing[0].metric).toMatchObject({
    __name__: 'encoderd_pipeline_playing',
    job: 'encoderd',
    instance: `127.0.0.1:${svc!.port}`,
    pipeline: 'px',
    mode: 'simple',
    codec: 'h264',
    output: 'udp',
  });
  expect(playing[0].value[1]).toBe('1');

  const health = await queryUntilResult('encoderd_pipeline_health{pipeline="px"}');
  expect(health.map((s) => s.metric.health).sort()).toEqual(['degraded', 'failing', 'ok']);
  const rss = await queryUntilResult('encoderd_engine_host_resident_memory_bytes{pipeline="px"}');
  expect(Number(rss[0].value[1])).toBeGreaterThan(1024 * 1024);

  // The target is up: the scrape was authenticated and the exposition parsed.
  const targets = await promGet('/api/v1/targets');
  const target = targets.body.data.activeTargets.find((t: any) => t.labels.job === 'encoderd');
  expect(target).toMatchObject({ health: 'up', lastError: '' });
});
