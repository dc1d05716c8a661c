/**
 * The isolation issue 17 keeps with the native engine host: a segfault in one pipeline's host (SIGSEGV sent to it, as
 * a faulting element would end it) leaves the other pipelines playing, their output flowing, and the API answering;
 * the faulted pipeline is restarted in a new host and plays again.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, h264Body, hostPidsByPipeline, startService, udpReceiver, waitFor, type RunningService } from '../helpers/service';
import { openSse } from '../helpers/sse';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ env: { ENCODERD_ENGINE_HOST: 'native' } });
});
afterAll(async () => {
  await svc?.stop();
});

it('a segfaulting native host ends only its pipeline: the others keep playing and sending, the API answers', async () => {
  const port = await freePort();
  const bystanderOut = await udpReceiver(port);
  try {
    expect((await svc.api('POST', '/svc/pipeline', h264Body('victim', `${svc.dataDir}/victim.ts`))).status).toBe(201);
    expect((await svc.api('POST', '/svc/pipeline', h264Body('bystander', `udp://127.0.0.1:${port}`))).status).toBe(201);
    const before = await hostPidsByPipeline(svc.child.pid!);
    expect(before.size).toBe(2);
    await waitFor(() => bystanderOut.packets.length > 20, 10000);
    const sse = await openSse(svc.port, '/svc/pipeline/victim/status/events');
    process.kill(before.get('victim')!, 'SIGSEGV');
    const err = await sse.next((e) => e.event === 'pipeline_error');
    expect(err.data.message).toMatch(/engine host exited unexpectedly.*SIGSEGV/);
    const sentAtCrash = bystanderOut.packets.length;
    expect((await svc.api('GET', '/svc/healthz')).status).toBe(200);
    await waitFor(async () => (await svc.api('GET', '/svc/pipeline/victim')).body.state === 'playing', 10000);
    const after = await hostPidsByPipeline(svc.child.pid!);
    expect(after.get('victim')).not.toBe(before.get('victim'));
    expect(after.get('bystander')).toBe(before.get('bystander'));
    expect((await svc.api('GET', '/svc/pipeline/bystander')).body.state).toBe('playing');
    await waitFor(() => bystanderOut.packets.length > sentAtCrash + 20, 5000);
    sse.close();
  } finally {
    bystanderOut.close();
    await svc.api('PUT', '/svc/pipeline/victim/stop');
    await svc.api('PUT', '/svc/pipeline/bystander/stop');
  }
});
