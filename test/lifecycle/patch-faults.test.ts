/**
 * PATCH answers a failing restart or live change with a code its spec list has (issue 14, item 5; docs/errors.md):
 * a restart refused for a resource keeps 409 PIPELINE_CONFLICT, a restart with no engine host keeps 503
 * ENGINE_UNAVAILABLE (neither becomes 504), and a live bitrate change the engine host fails is 503, not 500. The previous
 * configuration stays, playing. The engine-host faults of the last two exist in the Node host only
 * (test/fixtures/host-faults.js), so this service runs Node hosts; the 504 fallback is test/lifecycle/patch.test.ts's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostFaultEnv } from '../helpers/host-faults';
import { freePort, h264Body, startService, waitFor, type RunningService } from '../helpers/service';

const dir = mkdtempSync(join(tmpdir(), 'fault-'));
const faults = { start: join(dir, 'no-hosts'), set: join(dir, 'fail-next-set'), stopExit: join(dir, 'exit-at-next-stop') };
/** 320×240 at 30 fps, and room for less than twice that: a larger size is refused by the admission figure. */
const PIXEL_RATE = 320 * 240 * 30;

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({
    args: ['--max-total-pixel-rate', String(Math.round(PIXEL_RATE * 1.5)), '--restart-backoff-base-ms', '200'],
    // No spare host: "no host can start" must meet the restart's host, which a spare started earlier would stand in for.
    env: { ...hostFaultEnv(faults), ENCODERD_ENGINE_HOST: 'node', ENCODERD_SPARE_ENGINE_HOST: 'false' },
  });
});
afterAll(async () => {
  for (const f of Object.values(faults)) rmSync(f, { force: true });
  await svc?.stop();
});

const small = { codec: 'h264', bitrate: 500, width: 320, height: 240, fps: 30 };

async function playing(id: string): Promise<void> {
  const body = h264Body(id, `udp://127.0.0.1:${await freePort()}`, { encoding: small });
  const created = await svc.api('POST', '/svc/pipeline', body);
  expect(created.status, created.text).toBe(201);
  expect(created.body.state).toBe('playing');
}

describe('PATCH keeps its listed codes when the restart or the live change fails', () => {
  it('a restart the admission figure refuses: 409 PIPELINE_CONFLICT, the previous size playing again', async () => {
    await playing('admit');
    const patched = await svc.api('PATCH', '/svc/pipeline/admit', { encoding: { width: 640, height: 480 } });
    expect(patched.status, patched.text).toBe(409);
    expect(patched.body).toMatchObject({ code: 'PIPELINE_CONFLICT', message: expect.stringMatching(/--max-total-pixel-rate/) });
    expect((await svc.api('GET', '/svc/pipeline/admit')).body).toMatchObject({ state: 'playing', encoding: small });
    expect((await svc.api('PUT', '/svc/pipeline/admit/stop')).status).toBe(200);
  });

  it('a restart with no engine host: 503 ENGINE_UNAVAILABLE; the previous size plays again once hosts start', async () => {
    await playing('hostless');
    // The host dies as the restart stops it, and no new one can start.
    writeFileSync(faults.stopExit, 'once');
    writeFileSync(faults.start, 'on');
    const patched = await svc.api('PATCH', '/svc/pipeline/hostless', { encoding: { width: 160, height: 120 } });
    expect(patched.status, patched.text).toBe(503);
    expect(patched.body.code).toBe('ENGINE_UNAVAILABLE');
    expect((await svc.api('GET', '/svc/pipeline/hostless')).body).toMatchObject({ state: 'ready', encoding: small });
    rmSync(faults.start);
    const back = await waitFor(async () => {
      const view = (await svc.api('GET', '/svc/pipeline/hostless')).body;
      return view.state === 'playing' ? view : undefined;
    }, 15000);
    expect(back.encoding).toMatchObject(small);
    expect((await svc.api('PUT', '/svc/pipeline/hostless/stop')).status).toBe(200);
  });

  it('a live bitrate change the engine host fails: 503 ENGINE_UNAVAILABLE, the bitrate unchanged and still playing', async () => {
    await playing('live');
    writeFileSync(faults.set, 'once');
    const patched = await svc.api('PATCH', '/svc/pipeline/live', { encoding: { bitrate: 900 } });
    expect(patched.status, patched.text).toBe(503);
    expect(patched.body).toMatchObject({ code: 'ENGINE_UNAVAILABLE', message: expect.stringMatching(/^the encoder could not be changed: .*fault injected/) });
    expect((await svc.api('GET', '/svc/pipeline/live')).body).toMatchObject({ state: 'playing', encoding: { bitrate: 500 } });
    // The next change goes through: nothing was left half-applied.
    const again = await svc.api('PATCH', '/svc/pipeline/live', { encoding: { bitrate: 900 } });
    expect(again.status, again.text).toBe(200);
    expect(again.body.encoding.bitrate).toBe(900);
    expect((await svc.api('PUT', '/svc/pipeline/live/stop')).status).toBe(200);
  });
});
