/**
 * A bitrate PATCH of a running H.265 pipeline on the wire (core/pipeline/live-pacer.ts): x265enc re-opens libx265 at
 * each change, so the H.265 plugin paces them to one every 30 s. The first applies at once, the second is answered
 * at once and held until 30 s after the first. Host-independent (the pacing is the manager's), so it runs once, with
 * the default host, not in patch.test.ts's second run with the Node host. test/unit/live-pacer.test.ts has the rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesPerPicture } from '../helpers/mpegts-rate';
import { freePort, h264Body, hostPidsByPipeline, startService, udpReceiver, waitFor, type RunningService } from '../helpers/service';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

describe('live bitrate of H.265', () => {
  it('paces H.265 bitrate changes: the first at once, the next held until 30 s after it (x265 re-opens at each)', async () => {
    const port = await freePort();
    const rx = await udpReceiver(port);
    try {
      const body = h264Body('hevc-live', `udp://127.0.0.1:${port}`, {
        source: { uri: 'test://snow' },
        encoding: { codec: 'h265', bitrate: 150, width: 320, height: 240, fps: 15 },
      });
      expect((await svc.api('POST', '/svc/pipeline', body)).status).toBe(201);
      const pid = (await hostPidsByPipeline(svc.child.pid!)).get('hevc-live');
      await waitFor(() => rx.packets.length > 0 && rx.packets.at(-1)!.at - rx.packets[0].at >= 2500, 15000);
      const t0 = Date.now();
      expect((await svc.api('PATCH', '/svc/pipeline/hevc-live', { encoding: { bitrate: 1500 } })).status).toBe(200);
      await waitFor(() => rx.packets.at(-1)!.at >= t0 + 3000, 15000);
      const low = bytesPerPicture(rx.packets, t0 - 1500, t0);
      const high = bytesPerPicture(rx.packets, t0 + 1500, t0 + 3000);
      expect(high, `${Math.round(low)} → ${Math.round(high)} bytes a picture at once`).toBeGreaterThan(3 * low);
      // The second change, 3 s after the first: answered at once with the new rate, applied at t0 + 30 s.
      const t1 = Date.now();
      const held = await svc.api('PATCH', '/svc/pipeline/hevc-live', { encoding: { bitrate: 150 } });
      expect(held.status).toBe(200);
      expect(held.body).toMatchObject({ state: 'playing', encoding: { bitrate: 150 } });
      await waitFor(() => rx.packets.at(-1)!.at >= t1 + 10000, 20000);
      const still = bytesPerPicture(rx.packets, t1 + 2000, t1 + 10000);
      expect(still, `${Math.round(still)} bytes a picture while held`).toBeGreaterThan(2 * low);
      // From t0 + 30 s on, the held rate (the log line says when it went out).
      await waitFor(() => rx.packets.at(-1)!.at >= t0 + 35000, 30000);
      const after = bytesPerPicture(rx.packets, t0 + 32000, t0 + 35000);
      expect(after, `${Math.round(high)} → ${Math.round(after)} bytes a picture once applied`).toBeLessThan(high / 3);
      expect(svc.logs()).toContain('held encoder change applied');
      expect((await hostPidsByPipeline(svc.child.pid!)).get('hevc-live')).toBe(pid);
      await svc.api('PUT', '/svc/pipeline/hevc-live/stop');
    } finally {
      rx.close();
    }
  }, 90_000);

});
