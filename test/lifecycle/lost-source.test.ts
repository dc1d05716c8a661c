/**
 * Lost sources: a UDP source that goes silent and an RTSP server that stops are reported to watchers with
 * pipeline_error, and the pipeline reconnects with backoff once the source is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, h264Body, startService, waitFor, type RunningService } from '../helpers/service';
import { openSse } from '../helpers/sse';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ args: ['--start-timeout-ms', '3000'] });
});
afterAll(async () => {
  await svc?.stop();
});

const state = async (id: string) => (await svc.api('GET', `/svc/pipeline/${id}`)).body.state as string;

async function loseAndRecover(sender: string, receiver: string, expectMessage: RegExp) {
  const sse = await openSse(svc.port, `/svc/pipeline/${receiver}/status/events`);
  try {
    expect((await svc.api('PUT', `/svc/pipeline/${sender}/stop`)).body.state).toBe('ready');
    const err = await sse.next((e) => e.event === 'pipeline_error', 15000);
    expect(err.data.message).toMatch(expectMessage);
    await waitFor(async () => (await state(receiver)) === 'ready', 10000);
    expect((await svc.api('GET', `/svc/pipeline/${receiver}`)).body.last_error).toBeTruthy();
    // The source comes back: the receiver plays again by itself.
    expect((await svc.api('PUT', `/svc/pipeline/${sender}/play`)).body.state).toBe('playing');
    await waitFor(async () => (await state(receiver)) === 'playing', 25000, 250);
    const back = await svc.api('GET', `/svc/pipeline/${receiver}`);
    expect(back.body).toMatchObject({ state: 'playing', last_error: null });
  } finally {
    sse.close();
  }
}

describe('lost sources', () => {
  it('UDP silence: pipeline_error, ready, and playing again when datagrams return', async () => {
    const port = await freePort();
    expect((await svc.api('POST', '/svc/pipeline', h264Body('udp-sender', `udp://127.0.0.1:${port}`))).status).toBe(201);
    const rx = await svc.api('POST', '/svc/pipeline', h264Body('udp-receiver', `${svc.dataDir}/from-udp.mkv`, { source: { uri: `udp://127.0.0.1:${port}` } }));
    expect(rx.status).toBe(201);
    await loseAndRecover('udp-sender', 'udp-receiver', /went silent/);
    await svc.api('PUT', '/svc/pipeline/udp-receiver/stop');
    await svc.api('PUT', '/svc/pipeline/udp-sender/stop');
  });

  it('an RTSP server that stops: pipeline_error, and the source is reconnected when it is back', async () => {
    const port = await freePort();
    const url = `rtsp://127.0.0.1:${port}/cam`;
    expect((await svc.api('POST', '/svc/pipeline', h264Body('rtsp-server', url))).status).toBe(201);
    const rx = await svc.api('POST', '/svc/pipeline', h264Body('rtsp-client', `${svc.dataDir}/from-rtsp.mkv`, { source: { uri: url, latency_ms: 100 } }));
    expect(rx.status).toBe(201);
    await loseAndRecover('rtsp-server', 'rtsp-client', /./);
    await svc.api('PUT', '/svc/pipeline/rtsp-client/stop');
    await svc.api('PUT', '/svc/pipeline/rtsp-server/stop');
  });
});
