/** The resource conflict table for outputs in simple mode, and claims released on stop. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, h264Body, startService, type RunningService } from '../helpers/service';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ args: ['--start-timeout-ms', '4000'] });
});
afterAll(async () => {
  await svc?.stop();
});

describe('resource conflicts', () => {
  it('multicast is keyed on group, port and interface, in either form', async () => {
    const port = await freePort();
    const group = '239.255.42.7';
    expect((await svc.api('POST', '/svc/pipeline', h264Body('mc-a', `udp://${group}:${port}`, { output: { uri: `udp://${group}:${port}`, network_interface: 'lo' } }))).status).toBe(201);
    // The same group, port and interface through the inline form: a conflict naming the holder.
    const inline = await svc.api('POST', '/svc/pipeline', h264Body('mc-b', `udp://lo@${group}:${port}`));
    expect(inline.status).toBe(409);
    expect(inline.body.code).toBe('PIPELINE_CONFLICT');
    expect(inline.body.message).toContain(`${group}:${port}`);
    expect(inline.body.message).toContain('mc-a');
    // Another interface is another resource. No such interface exists here, so nothing is ever sent: the start
    // fails (504), but it is not refused as a conflict.
    const other = await svc.api('POST', '/svc/pipeline', h264Body('mc-c', `udp://nosuchif0@${group}:${port}`));
    expect(other.status).not.toBe(409);
    // Another port on the same group is free.
    const port2 = await freePort();
    expect((await svc.api('POST', '/svc/pipeline', h264Body('mc-d', `udp://lo@${group}:${port2}`))).status).toBe(201);
    for (const id of ['mc-a', 'mc-d']) await svc.api('PUT', `/svc/pipeline/${id}/stop`);
  });

  it('claims are released on stop and checked again at play', async () => {
    const path = `${svc.dataDir}/shared.mkv`;
    expect((await svc.api('POST', '/svc/pipeline', h264Body('holder', path))).status).toBe(201);
    expect((await svc.api('POST', '/svc/pipeline', { ...h264Body('waiter', path) })).status).toBe(409);
    await svc.api('PUT', '/svc/pipeline/holder/stop');
    // Stopped, holder no longer holds the file: waiter may now be created and played, after which holder may not play.
    expect((await svc.api('POST', '/svc/pipeline', h264Body('waiter', path))).status).toBe(201);
    const replay = await svc.api('PUT', '/svc/pipeline/holder/play');
    expect(replay.status).toBe(409);
    expect(replay.body.message).toContain('waiter');
    await svc.api('PUT', '/svc/pipeline/waiter/stop');
  });

  it('a patch that rebuilds keeps its own claims (no conflict with itself)', async () => {
    const port = await freePort();
    expect((await svc.api('POST', '/svc/pipeline', h264Body('self', `udp://127.0.0.1:${port}`))).status).toBe(201);
    const p = await svc.api('PATCH', '/svc/pipeline/self', { encoding: { fps: 15 } });
    expect(p.status).toBe(200);
    expect(p.body.state).toBe('playing');
    await svc.api('PUT', '/svc/pipeline/self/stop');
  });
});
