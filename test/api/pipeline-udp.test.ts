/** A test source encoded to H.264 and sent over UDP: the datagrams that arrive are MPEG-TS. */
import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, h264Body, startService, waitFor, type RunningService } from '../helpers/service';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

it('sends MPEG-TS datagrams of 7×188 bytes to a real UDP receiver, and stops sending on stop', async () => {
  const port = await freePort();
  const sock = createSocket('udp4');
  const datagrams: Buffer[] = [];
  sock.on('message', (m) => datagrams.push(m));
  await new Promise<void>((r) => sock.bind(port, '127.0.0.1', () => r()));
  try {
    const created = await svc.api('POST', '/svc/pipeline', h264Body('udp1', `udp://127.0.0.1:${port}`));
    expect(created.status).toBe(201);
    await waitFor(() => datagrams.length > 50, 10000);
    for (const d of datagrams.slice(0, 50)) {
      expect(d.length % 188).toBe(0);
      expect(d.length).toBeLessThanOrEqual(1316);
      for (let i = 0; i < d.length; i += 188) expect(d[i]).toBe(0x47);
    }
    // PIDs: a PAT on PID 0 and some elementary stream.
    const pids = new Set(datagrams.flatMap((d) => Array.from({ length: d.length / 188 }, (_, i) => ((d[i * 188 + 1] & 0x1f) << 8) | d[i * 188 + 2])));
    expect(pids.has(0)).toBe(true);
    expect(pids.size).toBeGreaterThan(2);
    expect((await svc.api('PUT', '/svc/pipeline/udp1/stop')).body.state).toBe('ready');
    await new Promise((r) => setTimeout(r, 300));
    const count = datagrams.length;
    await new Promise((r) => setTimeout(r, 700));
    expect(datagrams.length).toBe(count);
  } finally {
    sock.close();
  }
});

it('refuses a second pipeline to the same UDP destination, naming the holder', async () => {
  const port = await freePort();
  expect((await svc.api('POST', '/svc/pipeline', h264Body('udp-a', `udp://127.0.0.1:${port}`))).status).toBe(201);
  const second = await svc.api('POST', '/svc/pipeline', h264Body('udp-b', `udp://127.0.0.1:${port}`));
  expect(second.status).toBe(409);
  expect(second.body.code).toBe('PIPELINE_CONFLICT');
  expect(second.body.message).toContain(`127.0.0.1:${port}`);
  expect(second.body.message).toContain('udp-a');
  await svc.api('PUT', '/svc/pipeline/udp-a/stop');
});
