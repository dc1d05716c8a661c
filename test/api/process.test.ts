/**
 * The service as a process: health shapes, TLS reuse, SIGTERM finalises and exits 0, SIGKILL leaves no hosts (the
 * spare engine host included).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { alive, childPids, h264Body, hostPidsByPipeline, run, sleep, sparePid, startService, waitFor } from '../helpers/service';

describe('service process', () => {
  it('answers health, healthz and version in the documented shapes', async () => {
    const svc = await startService();
    try {
      const health = await svc.api('GET', '/svc/health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'ok', engine: { status: 'ok' } });
      expect(typeof health.body.uptime_s).toBe('number');
      expect((await svc.api('GET', '/svc/healthz')).body).toEqual({ status: 'ok' });
      const version = await svc.api('GET', '/svc/version');
      expect(version.body).toMatchObject({ service: 'encoderd', api_version: '1', node: process.version });
      expect(version.body.gstreamer).toMatch(/GStreamer 1\.22/);
      const names = version.body.plugins.map((p: { name: string; kind: string }) => `${p.kind}:${p.name}`);
      expect(names).toEqual(expect.arrayContaining(['source:test', 'codec:h264', 'output:file', 'output:udp']));
    } finally {
      await svc.stop();
    }
  });

  it('reuses its self-signed certificate across restarts', async () => {
    const first = await startService();
    const cert = readFileSync(`${first.dataDir}/tls/cert.pem`, 'utf8');
    expect(cert).toContain('BEGIN CERTIFICATE');
    await first.stop();
    const second = await startService({ dataDir: first.dataDir });
    expect(readFileSync(`${second.dataDir}/tls/cert.pem`, 'utf8')).toBe(cert);
    await second.stop();
  });

  it('on SIGTERM finalises a running recording, ends its hosts and exits 0', async () => {
    const svc = await startService();
    const path = `${svc.dataDir}/term.mkv`;
    expect((await svc.api('POST', '/svc/pipeline', h264Body('term', path))).status).toBe(201);
    await sleep(1500);
    expect([...(await hostPidsByPipeline(svc.child.pid!)).keys()]).toEqual(['term']);
    const spare = await waitFor(() => sparePid(svc.child.pid!));
    const hosts = await childPids(svc.child.pid!);
    expect(hosts).toContain(spare);
    expect(hosts.length).toBe(2);
    expect(await svc.stop()).toBe(0);
    for (const pid of hosts) expect(alive(pid)).toBe(false);
    const probe = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path]);
    expect(Number(probe.stdout.trim())).toBeGreaterThan(0.8);
  });

  it('killing the API process (SIGKILL) leaves no orphaned engine hosts', async () => {
    const svc = await startService();
    for (const id of ['k1', 'k2']) {
      expect((await svc.api('POST', '/svc/pipeline', h264Body(id, `${svc.dataDir}/${id}.ts`))).status).toBe(201);
    }
    expect([...(await hostPidsByPipeline(svc.child.pid!)).keys()].sort()).toEqual(['k1', 'k2']);
    const spare = await waitFor(() => sparePid(svc.child.pid!));
    const hosts = await childPids(svc.child.pid!);
    expect(hosts).toContain(spare);
    expect(hosts.length).toBe(3);
    await svc.kill('SIGKILL');
    await waitFor(() => hosts.every((pid) => !alive(pid)), 5000);
  });
});
