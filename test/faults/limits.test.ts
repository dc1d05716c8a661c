/**
 * Bounded cost per request: what a codec cannot encode, a source that cannot be there, a start beyond the admission
 * figure and an engine host beyond its memory ceiling are each answered or contained; the service lives on.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { h264Body, hostPidsByPipeline, startService, waitFor, type RunningService } from '../helpers/service';
import { openSse } from '../helpers/sse';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

const errorsOf = (r: { body: { details?: { errors?: string[] } } }) => r.body.details?.errors ?? [];

describe('codec limits', () => {
  it('create, PUT and PATCH answer 400 VALIDATION_ERROR naming the field; the playing pipeline is untouched', async () => {
    const udp = (n: number) => `udp://127.0.0.1:${41000 + n}`;
    const huge = await svc.api('POST', '/svc/pipeline', h264Body('huge', udp(1), { encoding: { codec: 'h264', width: 16384, height: 16384 } }));
    expect(huge.status).toBe(400);
    expect(huge.body.code).toBe('VALIDATION_ERROR');
    expect(errorsOf(huge)).toContain('encoding.width must be between 1 and 8192 for h264');
    const odd = await svc.api('POST', '/svc/pipeline', h264Body('odd', udp(2), { encoding: { codec: 'h264', width: 631, height: 521 } }));
    expect(odd.status).toBe(400);
    expect(errorsOf(odd)).toEqual([
      'encoding.width must be even for h264 (4:2:0 chroma: the encoder cannot open an odd size)',
      'encoding.height must be even for h264 (4:2:0 chroma: the encoder cannot open an odd size)',
    ]);
    // Within each side's range, but a frame bigger than H.265 level 5.2's, and a rate beyond AV1 level 5.3's.
    const frame = await svc.api('POST', '/svc/pipeline', h264Body('frame', udp(3), { encoding: { codec: 'h265', width: 8192, height: 4320 } }));
    expect(errorsOf(frame)[0]).toMatch(/^encoding.width × encoding.height \(8192×4320 = 35389440 pixels\) must be at most 8912896 pixels for h265/);
    const rate = await svc.api('POST', '/svc/pipeline', h264Body('rate', udp(6), { encoding: { codec: 'h264', width: 4096, height: 2304, fps: 60 } }));
    expect(errorsOf(rate)).toEqual(['encoding.width × encoding.height × encoding.fps (566231040 pixels/s) must be at most 530841600 pixels/s for h264']);
    expect(errorsOf(await svc.api('POST', '/svc/pipeline', h264Body('tiny', udp(4), { encoding: { codec: 'h265', width: 8, height: 8 } }))))
      .toContain('encoding.width must be between 16 and 8192 for h265');
    // AV1 pads an odd size itself: 631×521 is valid there.
    const av1 = await svc.api('POST', '/svc/pipeline', { ...h264Body('av1odd', `${svc.dataDir}/av1odd.mkv`), encoding: { codec: 'av1', width: 631, height: 521, fps: 10, bitrate: 200 } });
    expect(av1.status).toBe(201);
    expect(av1.body.state).toBe('playing');
    await svc.api('PUT', '/svc/pipeline/av1odd/stop');

    expect((await svc.api('POST', '/svc/pipeline', h264Body('lim', udp(5)))).status).toBe(201);
    for (const encoding of [{ width: 16384, height: 16384 }, { width: 631, height: 521 }, { fps: 120, width: 8192, height: 1152 }]) {
      const r = await svc.api('PATCH', '/svc/pipeline/lim', { encoding });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('VALIDATION_ERROR');
      expect(errorsOf(r)[0]).toMatch(/^encoding\.(width|height|fps)/);
    }
    expect((await svc.api('GET', '/svc/pipeline/lim')).body).toMatchObject({ state: 'playing', encoding: { width: 320, height: 240 } });
    await svc.api('PUT', '/svc/pipeline/lim/stop');
    // Stopped, a patch is kept for the next start: it is checked all the same.
    expect((await svc.api('PATCH', '/svc/pipeline/lim', { encoding: { width: 321 } })).status).toBe(400);
    const put = await svc.api('PUT', '/svc/pipeline/lim', h264Body('lim', udp(5), { encoding: { codec: 'h264', width: 16384, height: 16384 } }));
    expect(put.status).toBe(400);
    expect((await svc.api('GET', '/svc/pipeline/lim')).body.encoding).toMatchObject({ width: 320, height: 240 });
    expect((await svc.api('DELETE', '/svc/pipeline/lim')).status).toBe(204);
  });

  it('a multiview encoding is held to AV1\'s limits', async () => {
    const r = await svc.api('POST', '/svc/pipeline', {
      id: 'mvbig', mode: 'multiview', inputs: [{ source: { uri: 'test://red' } }], encoding: { width: 4096, height: 4400 }, output: { uri: `${svc.dataDir}/mv.mkv` },
    });
    expect(r.status).toBe(400);
    expect(errorsOf(r)).toContain('encoding.height must be between 4 and 4352 for av1');
  });
});

describe('sources that cannot be there', () => {
  it('a file that cannot be read, is empty or is text, and a missing camera, are 400 at create and PUT', async () => {
    const passwd = await svc.api('POST', '/svc/pipeline', { id: 'pw', mode: 'simple', source: { uri: 'file:///etc/passwd' }, output: { uri: 'udp://127.0.0.1:41010' } });
    expect(passwd.status).toBe(400);
    expect(passwd.body.code).toBe('VALIDATION_ERROR');
    expect(errorsOf(passwd)).toEqual(['source.uri file /etc/passwd is text, not a media file']);
    const empty = join(svc.dataDir, 'empty.ts');
    writeFileSync(empty, '');
    expect(errorsOf(await svc.api('POST', '/svc/pipeline', { id: 'empty', mode: 'simple', source: { uri: `file://${empty}` }, output: { uri: 'udp://127.0.0.1:41011' } })))
      .toEqual([`source.uri file ${empty} is empty`]);
    expect(errorsOf(await svc.api('POST', '/svc/pipeline', { id: 'gone', mode: 'simple', source: { uri: 'file:///no/such.ts' }, output: { uri: 'udp://127.0.0.1:41012' } })))
      .toEqual(['source.uri file /no/such.ts does not exist']);

    const camera = '/dev/video63';
    expect(existsSync(camera)).toBe(false);
    const cam = await svc.api('POST', '/svc/pipeline', h264Body('cam', 'udp://127.0.0.1:41013', { source: { uri: `file://${camera}` } }));
    expect(cam.status).toBe(400);
    expect(errorsOf(cam)).toEqual([`source.uri camera ${camera} does not exist (no such device is plugged in)`]);
    const mv = await svc.api('POST', '/svc/pipeline', {
      id: 'mvcam', mode: 'multiview', inputs: [{ source: { uri: 'test://red' } }, { source: { uri: `file://${camera}` } }], output: { uri: `${svc.dataDir}/mvcam.mkv` },
    });
    expect(errorsOf(mv)).toEqual([`inputs[1].source.uri camera ${camera} does not exist (no such device is plugged in)`]);
    for (const id of ['pw', 'empty', 'gone', 'cam', 'mvcam']) expect((await svc.api('GET', `/svc/pipeline/${id}`)).status).toBe(404);

    expect((await svc.api('POST', '/svc/pipeline', h264Body('swap', 'udp://127.0.0.1:41014'))).status).toBe(201);
    await svc.api('PUT', '/svc/pipeline/swap/stop');
    const put = await svc.api('PUT', '/svc/pipeline/swap', h264Body('swap', 'udp://127.0.0.1:41014', { source: { uri: `file://${camera}` } }));
    expect(put.status).toBe(400);
    expect((await svc.api('GET', '/svc/pipeline/swap')).body.source.uri).toBe('test://ball');
    await svc.api('DELETE', '/svc/pipeline/swap');
  });
});

describe('admission', () => {
  it('a start beyond --max-total-pixel-rate is 409 PIPELINE_CONFLICT saying why; stopping another frees it', async () => {
    // Room for two 320×240×30 pipelines (2 304 000 pixels/s each) and a 160×120×30 one (576 000), not three of the first.
    const small = await startService({ args: ['--max-total-pixel-rate', String(2 * 320 * 240 * 30 + 160 * 120 * 30)] });
    try {
      expect((await small.api('POST', '/svc/pipeline', h264Body('a', 'udp://127.0.0.1:41020'))).status).toBe(201);
      expect((await small.api('POST', '/svc/pipeline', h264Body('b', 'udp://127.0.0.1:41021'))).status).toBe(201);
      const c = await small.api('POST', '/svc/pipeline', h264Body('c', 'udp://127.0.0.1:41022'));
      expect(c.status).toBe(409);
      expect(c.body.code).toBe('PIPELINE_CONFLICT');
      expect(c.body.message).toBe('starting pipeline "c" (2304000 pixels/s) would take the playing pipelines\' total to 6912000 pixels/s, over this appliance\'s limit of 5184000 (--max-total-pixel-rate): stop another pipeline or lower this one\'s width, height or fps');
      // A smaller encoding fits where the same one did not; a patch that grows it again is refused the same way.
      expect((await small.api('PUT', '/svc/pipeline/b/stop')).status).toBe(200);
      expect((await small.api('PUT', '/svc/pipeline/c/play')).body.state).toBe('playing');
      expect((await small.api('PUT', '/svc/pipeline/b/play')).status).toBe(409);
      expect((await small.api('PATCH', '/svc/pipeline/b', { encoding: { width: 160, height: 120 } })).body.state).toBe('ready');
      expect((await small.api('PUT', '/svc/pipeline/b/play')).body.state).toBe('playing');
      expect((await small.api('GET', '/svc/pipeline/a')).body.state).toBe('playing');
    } finally {
      await small.stop();
    }
  });
});

describe('memory ceiling', () => {
  it('a host that outgrows --host-memory-max-mb ends like a crash: pipeline_error, restart with backoff; others and the service live on', async () => {
    // An idle host reserves about 1.3 GB of address space (Node and GStreamer); 1600 MiB leaves little room. The hog's
    // queue is unbounded and its consumer takes 10 frames a second of a 60 fps live 1080p source: +150 MB/s.
    const tight = await startService({ args: ['--host-memory-max-mb', '1600'] });
    try {
      const calm = await tight.api('POST', '/svc/pipeline', { id: 'calm', mode: 'advanced', raw_pipeline: 'videotestsrc is-live=true ! video/x-raw,width=64,height=48 ! fakesink' });
      expect(calm.body.state).toBe('playing');
      const sse = await openSse(tight.port, '/svc/events');
      const hog = await tight.api('POST', '/svc/pipeline', {
        id: 'hog',
        mode: 'advanced',
        raw_pipeline: 'videotestsrc is-live=true ! video/x-raw,width=1920,height=1080,framerate=60/1 ! queue max-size-buffers=0 max-size-bytes=0 max-size-time=0 ! identity sleep-time=100000 ! fakesink',
      });
      expect(hog.body.state).toBe('playing');
      const first = (await hostPidsByPipeline(tight.child.pid!)).get('hog');
      const err = await sse.next((e) => e.event === 'pipeline_error' && e.data.pipeline_id === 'hog', 20000);
      expect(err.data.message).toMatch(/engine host exited unexpectedly \(SIG[A-Z]+; a fault in one of its elements, or more memory than its 1600 MiB ceiling \(--host-memory-max-mb\)\)/);
      // Restarted with backoff: it plays again in a new host (and will outgrow it again).
      await waitFor(async () => {
        const now = (await hostPidsByPipeline(tight.child.pid!)).get('hog');
        return now !== undefined && now !== first;
      }, 20000);
      sse.close();
      // Not last_error: the restart's successful start clears it until the host outgrows its ceiling again, so what
      // it holds here depends on timing; the pipeline_error above carries the same message.
      expect((await tight.api('GET', '/svc/pipeline/calm')).body.state).toBe('playing');
      expect((await tight.api('GET', '/svc/healthz')).status).toBe(200);
      await tight.api('PUT', '/svc/pipeline/hog/stop');
    } finally {
      await tight.stop();
    }
  });
});
