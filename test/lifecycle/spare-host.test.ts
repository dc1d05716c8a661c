/**
 * The spare engine host through a real service (core/engine/spare-host.ts, docs/engine-host.md "The spare host"):
 * started idle, handed to the next pipeline that needs a host and named for it, replaced in the background, replaced
 * when it dies idle, ended with the service; none with --spare-engine-host false.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, childPids, h264Body, hostPidsByPipeline, sparePid, startService, waitFor, type RunningService } from '../helpers/service';

describe('spare engine host', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('is handed to the next create, named for its pipeline, and another spare takes its place', async () => {
    const spare = await waitFor(() => sparePid(svc.child.pid!));
    const r = await svc.api('POST', '/svc/pipeline', h264Body('first', `${svc.dataDir}/first.ts`));
    expect(r.status).toBe(201);
    expect(r.body.state).toBe('playing');
    expect((await hostPidsByPipeline(svc.child.pid!)).get('first')).toBe(spare);
    const next = await waitFor(() => sparePid(svc.child.pid!));
    expect(next).not.toBe(spare);
    expect((await svc.api('PUT', '/svc/pipeline/first/stop')).status).toBe(200);
  });

  it('a host that crashes is replaced by the spare: the pipeline plays again in it', async () => {
    expect((await svc.api('POST', '/svc/pipeline', h264Body('victim', `${svc.dataDir}/victim.ts`))).status).toBe(201);
    const before = (await hostPidsByPipeline(svc.child.pid!)).get('victim')!;
    const spare = await waitFor(() => sparePid(svc.child.pid!));
    process.kill(before, 'SIGKILL');
    await waitFor(async () => (await hostPidsByPipeline(svc.child.pid!)).get('victim') === spare, 10000);
    await waitFor(async () => (await svc.api('GET', '/svc/pipeline/victim')).body.state === 'playing', 10000);
    expect((await svc.api('PUT', '/svc/pipeline/victim/stop')).status).toBe(200);
  });

  it('a spare that dies while idle is replaced, and a create still gets a host', async () => {
    const spare = await waitFor(() => sparePid(svc.child.pid!));
    process.kill(spare, 'SIGKILL');
    const next = await waitFor(async () => {
      const pid = await sparePid(svc.child.pid!);
      return pid !== spare && pid;
    }, 10000);
    const r = await svc.api('POST', '/svc/pipeline', h264Body('after', `${svc.dataDir}/after.ts`));
    expect(r.body.state).toBe('playing');
    expect((await hostPidsByPipeline(svc.child.pid!)).get('after')).toBe(next);
    expect((await svc.api('PUT', '/svc/pipeline/after/stop')).status).toBe(200);
  });

  it('ends with the service', async () => {
    const other = await startService();
    const spare = await waitFor(() => sparePid(other.child.pid!));
    expect(await other.stop()).toBe(0);
    expect(alive(spare)).toBe(false);
  });

  it('with --spare-engine-host false there is none: each pipeline spawns its own host', async () => {
    const none = await startService({ args: ['--spare-engine-host', 'false'] });
    try {
      const r = await none.api('POST', '/svc/pipeline', h264Body('own', `${none.dataDir}/own.ts`));
      expect(r.body.state).toBe('playing');
      const hosts = await hostPidsByPipeline(none.child.pid!);
      expect(await childPids(none.child.pid!)).toEqual([hosts.get('own')]);
      expect(await sparePid(none.child.pid!)).toBeUndefined();
    } finally {
      await none.stop();
    }
  });
});
