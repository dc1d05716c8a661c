/** The status stream: pipeline_status on changes, pipeline_error, pipeline_not_found, keepalive; list filters. */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { h264Body, startService, type RunningService } from '../helpers/service';
import { openSse } from '../helpers/sse';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ args: ['--sse-keepalive-ms', '300'] });
});
afterAll(async () => {
  await svc?.stop();
});

describe('status events', () => {
  it('sends the current status, each state change, keepalives, and pipeline_not_found on delete', async () => {
    expect((await svc.api('POST', '/svc/pipeline', h264Body('ev', `${svc.dataDir}/ev.mkv`, { on_demand: false }))).status).toBe(201);
    const sse = await openSse(svc.port, '/svc/pipeline/ev/status/events');
    await sse.next((e) => e.event === 'pipeline_status' && e.data.state === 'playing');
    await svc.api('PUT', '/svc/pipeline/ev/stop');
    await sse.next((e) => e.event === 'pipeline_status' && e.data.state === 'ready');
    await svc.api('PUT', '/svc/pipeline/ev/play');
    const playing = sse.events.filter((e) => e.event === 'pipeline_status' && e.data.state === 'playing');
    await sse.next((e) => e.event === 'pipeline_status' && e.data.state === 'playing' && !playing.includes(e));
    await new Promise((r) => setTimeout(r, 700));
    expect(sse.comments.filter((c) => c === 'keepalive').length).toBeGreaterThanOrEqual(1);
    await svc.api('PUT', '/svc/pipeline/ev/stop');
    await svc.api('DELETE', '/svc/pipeline/ev');
    const gone = await sse.next((e) => e.event === 'pipeline_not_found');
    expect(gone.data).toEqual({ pipeline_id: 'ev' });
    await sse.ended;
  });

  it('answers pipeline_not_found at once for an unknown id', async () => {
    const sse = await openSse(svc.port, '/svc/pipeline/never/status/events');
    const ev = await sse.next((e) => e.event === 'pipeline_not_found');
    expect(ev.data).toEqual({ pipeline_id: 'never' });
    await sse.ended;
  });

  it('sends pipeline_error with a message when a start fails', async () => {
    const dir = join(svc.dataDir, 'gone');
    mkdirSync(dir);
    expect((await svc.api('POST', '/svc/pipeline', h264Body('bad', `${dir}/bad.mkv`))).status).toBe(201);
    await svc.api('PUT', '/svc/pipeline/bad/stop');
    const sse = await openSse(svc.port, '/svc/pipeline/bad/status/events');
    // The recording's directory is gone, so its filesink cannot open (a size the encoder cannot open, the way this
    // failed before, is a 400 at PATCH now: test/faults/limits.test.ts).
    rmSync(dir, { recursive: true });
    const play = await svc.api('PUT', '/svc/pipeline/bad/play');
    expect(play.status).toBe(504);
    const err = await sse.next((e) => e.event === 'pipeline_error');
    expect(typeof err.data.message).toBe('string');
    expect(err.data.message.length).toBeGreaterThan(0);
    sse.close();
  });
});

describe('list filters', () => {
  it('filters by mode, on_demand and state', async () => {
    expect((await svc.api('POST', '/svc/pipeline', h264Body('fa', `${svc.dataDir}/fa.mkv`))).status).toBe(201);
    expect((await svc.api('POST', '/svc/pipeline', h264Body('fb', `${svc.dataDir}/fb.mkv`))).status).toBe(201);
    await svc.api('PUT', '/svc/pipeline/fb/stop');
    const ids = async (q: string) => ((await svc.api('GET', `/svc/pipeline${q}`)).body as Array<{ id: string }>).map((p) => p.id);
    expect(await ids('?state=playing')).toContain('fa');
    expect(await ids('?state=playing')).not.toContain('fb');
    expect(await ids('?state=ready')).toContain('fb');
    expect(await ids('?mode=simple&on_demand=false')).toEqual(expect.arrayContaining(['fa', 'fb']));
    expect(await ids('?mode=advanced')).toEqual([]);
    expect(await ids('?on_demand=true')).toEqual([]);
    expect((await svc.api('GET', '/svc/pipeline?on_demand=maybe')).status).toBe(400);
    await svc.api('PUT', '/svc/pipeline/fa/stop');
  });
});
