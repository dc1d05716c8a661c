/** Engine host crashes: watchers hear of it, the host comes back and plays again, nothing else is touched. */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { h264Body, hostPidsByPipeline, startService, waitFor, type RunningService } from '../helpers/service';
import { openSse } from '../helpers/sse';
import { hostFaultEnv } from '../helpers/host-faults';

let svc: RunningService;
let faultFile: string;
beforeAll(async () => {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  faultFile = join(mkdtempSync(join(tmpdir(), 'fault-')), 'no-hosts');
  // No spare host: "no host can start" must meet the next host's start, and a spare started before the fault would
  // stand in for it (test/lifecycle/spare-host.test.ts covers the spare).
  svc = await startService({ env: { ...hostFaultEnv({ start: faultFile }), ENCODERD_SPARE_ENGINE_HOST: 'false' } });
});
afterAll(async () => {
  rmSync(faultFile, { force: true });
  await svc?.stop();
});

describe('engine host crash', () => {
  it('a SIGKILLed host: pipeline_error to watchers, restart with backoff, playing again; others untouched', async () => {
    expect((await svc.api('POST', '/svc/pipeline', h264Body('victim', `${svc.dataDir}/victim.ts`))).status).toBe(201);
    expect((await svc.api('POST', '/svc/pipeline', h264Body('bystander', `${svc.dataDir}/bystander.ts`))).status).toBe(201);
    const before = await hostPidsByPipeline(svc.child.pid!);
    const sse = await openSse(svc.port, '/svc/pipeline/victim/status/events');
    process.kill(before.get('victim')!, 'SIGKILL');
    const err = await sse.next((e) => e.event === 'pipeline_error');
    expect(err.data.message).toMatch(/engine host exited unexpectedly/);
    await sse.next((e) => e.event === 'pipeline_status' && e.data.state === 'ready');
    await waitFor(async () => (await svc.api('GET', '/svc/pipeline/victim')).body.state === 'playing', 10000);
    const after = await hostPidsByPipeline(svc.child.pid!);
    expect(after.get('victim')).not.toBe(before.get('victim'));
    expect(after.get('bystander')).toBe(before.get('bystander'));
    expect((await svc.api('GET', '/svc/pipeline/bystander')).body.state).toBe('playing');
    expect((await svc.api('GET', '/svc/healthz')).status).toBe(200);
    sse.close();
    await svc.api('PUT', '/svc/pipeline/victim/stop');
    await svc.api('PUT', '/svc/pipeline/bystander/stop');
  });

  it('answers 503 ENGINE_UNAVAILABLE while no host can be started, and recovers after', async () => {
    expect((await svc.api('POST', '/svc/pipeline', h264Body('orphan', `${svc.dataDir}/orphan.ts`))).status).toBe(201);
    await svc.api('PUT', '/svc/pipeline/orphan/stop');
    writeFileSync(faultFile, 'on');
    process.kill((await hostPidsByPipeline(svc.child.pid!)).get('orphan')!, 'SIGKILL');
    await waitFor(async () => !(await hostPidsByPipeline(svc.child.pid!)).has('orphan'), 5000);
    const play = await svc.api('PUT', '/svc/pipeline/orphan/play');
    expect(play.status).toBe(503);
    expect(play.body.code).toBe('ENGINE_UNAVAILABLE');
    rmSync(faultFile);
    const again = await svc.api('PUT', '/svc/pipeline/orphan/play');
    expect(again.status).toBe(200);
    expect(again.body.state).toBe('playing');
    await svc.api('PUT', '/svc/pipeline/orphan/stop');
  });

  it('applies concurrent commands on one pipeline in order, and the state matches GStreamer', async () => {
    expect((await svc.api('POST', '/svc/pipeline', h264Body('busy', `${svc.dataDir}/busy.ts`))).status).toBe(201);
    const ops: Array<[string, string, unknown?]> = [
      ['PUT', '/svc/pipeline/busy/stop'], ['PUT', '/svc/pipeline/busy/play'], ['PATCH', '/svc/pipeline/busy', { encoding: { bitrate: 900 } }],
      ['PUT', '/svc/pipeline/busy/stop'], ['PUT', '/svc/pipeline/busy/play'], ['PUT', '/svc/pipeline/busy/stop'],
      ['DELETE', '/svc/pipeline/busy'],
    ];
    // Sent 15 ms apart so they arrive in this order, each long before the one ahead of it has finished.
    const pending = [];
    for (const [m, p, b] of ops) {
      pending.push(svc.api(m, p, b));
      await new Promise((r) => setTimeout(r, 15));
    }
    const results = await Promise.all(pending);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 204]);
    expect(results.map((r) => r.body?.state)).toEqual(['ready', 'playing', 'playing', 'ready', 'playing', 'ready', undefined]);
    expect(results[2].body.encoding.bitrate).toBe(900);
    expect((await svc.api('GET', '/svc/pipeline/busy')).status).toBe(404);
    await waitFor(async () => !(await hostPidsByPipeline(svc.child.pid!)).has('busy'), 5000);
  });
});
