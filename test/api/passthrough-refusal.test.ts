// A passed-through source whose codec the output cannot carry is the client's mistake, not the engine's (issue 14):
// create and PUT answer 400 VALIDATION_ERROR naming output.uri and the reason; play, which lists no 400, answers 409
// PIPELINE_CONFLICT and keeps the pipeline ready with last_error and health failing; so does an auto-start after a
// restart (docs/api.md, passthrough; docs/errors.md). The real service over HTTPS; the sources are short media files
// made with gst-launch-1.0: AV1 in Matroska, which a .ts file cannot carry, and H.264, which it can.
import { existsSync, mkdtempSync, renameSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, run, startService, waitFor, type RunningService } from '../helpers/service';
import { openSse } from '../helpers/sse';

let svc: RunningService;
let dir: string;
let av1Clip: string;
let h264Clip: string;

const RAW = 'video/x-raw,format=I420,width=320,height=240,framerate=15/1';

async function makeClip(path: string, encode: string[]): Promise<void> {
  const made = await run('gst-launch-1.0', ['-q', 'videotestsrc', 'num-buffers=45', 'pattern=ball', '!', RAW, '!', ...encode, '!', 'matroskamux', '!', 'filesink', `location=${path}`]);
  expect(made.code, made.stderr).toBe(0);
}

/** A passthrough pipeline: a file source and an output, no encoding. */
function relay(id: string, source: string, output: string, extra: Record<string, unknown> = {}) {
  return { id, mode: 'simple', source: { uri: `file://${source}` }, output: { uri: output }, ...extra };
}

/** Replaces the file a source reads, in one step (a source whose codec changes between two starts). */
function replaceSource(path: string, withClip: string): void {
  copyFileSync(withClip, `${path}.new`);
  renameSync(`${path}.new`, path);
}

function expectRefusal(r: { status: number; body: any; text: string }, ext: string): void {
  expect(r.status, r.text).toBe(400);
  expect(r.body.code).toBe('VALIDATION_ERROR');
  expect(r.body.details.errors).toHaveLength(1);
  const [why] = r.body.details.errors as string[];
  expect(why).toMatch(new RegExp(`^output\\.uri: a \\.${ext} file cannot carry av1 \\(the source's video is av1, passed through`));
  expect(r.body.message).toBe(why);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'encoderd-pt-refusal-'));
  av1Clip = join(dir, 'av1.mkv');
  h264Clip = join(dir, 'h264.mkv');
  await makeClip(av1Clip, ['av1enc', 'usage-profile=realtime', 'end-usage=cbr', 'cpu-used=10', 'min-quantizer=0', 'max-quantizer=63', '!', 'av1parse']);
  await makeClip(h264Clip, ['x264enc', 'speed-preset=ultrafast', 'key-int-max=15', '!', 'h264parse']);
  svc = await startService({ args: ['--start-timeout-ms', '6000'] });
});

afterAll(async () => {
  await svc?.stop();
});

describe('a passed-through AV1 source into a .ts file', () => {
  it('create answers 400 with the reason, and leaves no pipeline, no file and no claim behind', async () => {
    const out = join(dir, 'create.ts');
    const watch = await openSse(svc.port, '/svc/events');
    let r;
    try {
      r = await svc.api('POST', '/svc/pipeline', relay('pt-create', av1Clip, out));
      // A console that saw the pipeline appear while its source was opened is told it is gone.
      await watch.next((e) => e.event === 'pipeline_not_found' && e.data.pipeline_id === 'pt-create', 5000);
    } finally {
      watch.close();
    }
    expectRefusal(r, 'ts');
    expect((await svc.api('GET', '/svc/pipeline/pt-create')).status).toBe(404);
    expect(((await svc.api('GET', '/svc/pipeline')).body as Array<{ id: string }>).map((p) => p.id)).not.toContain('pt-create');
    expect(existsSync(out)).toBe(false);
    // Nothing holds the id or the file: the corrected definition is created at once, and another pipeline takes the file.
    const fixed = await svc.api('POST', '/svc/pipeline', relay('pt-create', av1Clip, join(dir, 'create.mkv')));
    expect(fixed.status, fixed.text).toBe(201);
    expect(fixed.body.state).toBe('playing');
    expect(fixed.body.last_error).toBeNull();
    const other = await svc.api('POST', '/svc/pipeline', relay('pt-create-h264', h264Clip, out));
    expect(other.status, other.text).toBe(201);
    for (const id of ['pt-create', 'pt-create-h264']) {
      await svc.api('PUT', `/svc/pipeline/${id}/stop`);
      expect((await svc.api('DELETE', `/svc/pipeline/${id}`)).status).toBe(204);
    }
  });

  it('a refused create of a stored id keeps the stored copy', async () => {
    const created = await svc.api('POST', '/svc/pipeline', relay('pt-stored', h264Clip, join(dir, 'stored.ts')));
    expect(created.status, created.text).toBe(201);
    expect((await svc.api('POST', '/svc/pipeline/pt-stored/store', { description: 'kept' })).status).toBe(201);
    await svc.api('PUT', '/svc/pipeline/pt-stored/stop');
    expect((await svc.api('DELETE', '/svc/pipeline/pt-stored')).status).toBe(204);

    expectRefusal(await svc.api('POST', '/svc/pipeline', relay('pt-stored', av1Clip, join(dir, 'stored.ts'))), 'ts');
    const again = await svc.api('POST', '/svc/pipeline', relay('pt-stored', h264Clip, join(dir, 'stored.ts')));
    expect(again.status, again.text).toBe(201);
    expect(again.body.persisted).toBe(true);
    expect(again.body.description).toBe('kept');
    await svc.api('PUT', '/svc/pipeline/pt-stored/stop');
    expect((await svc.api('DELETE', '/svc/pipeline/pt-stored?delete_persisted=true')).status).toBe(204);
  });

  it('PUT answers 400 with the reason and keeps the previous definition, which still plays', async () => {
    const mkv = join(dir, 'put.mkv');
    const created = await svc.api('POST', '/svc/pipeline', relay('pt-put', av1Clip, mkv));
    expect(created.status, created.text).toBe(201);
    expect((await svc.api('PUT', '/svc/pipeline/pt-put/stop')).status).toBe(200);

    const r = await svc.api('PUT', '/svc/pipeline/pt-put', relay('pt-put', av1Clip, join(dir, 'put.ts')));
    expectRefusal(r, 'ts');
    const view = (await svc.api('GET', '/svc/pipeline/pt-put')).body;
    expect(view.output.uri).toBe(mkv);
    expect(view.state).toBe('ready');

    // A source that sends nothing within the start timeout cannot tell: the PUT is accepted, the codec learned at play.
    const silent = await svc.api('PUT', '/svc/pipeline/pt-put', { ...relay('pt-put', av1Clip, join(dir, 'put.ts')), source: { uri: `udp://127.0.0.1:${await freePort()}` } });
    expect(silent.status, silent.text).toBe(200);
    expect(silent.body.source.uri).toMatch(/^udp:/);

    // A PUT the source can take is accepted (its source is opened to tell), and plays.
    const ok = await svc.api('PUT', '/svc/pipeline/pt-put', relay('pt-put', h264Clip, join(dir, 'put.ts')));
    expect(ok.status, ok.text).toBe(200);
    const played = await svc.api('PUT', '/svc/pipeline/pt-put/play');
    expect(played.status, played.text).toBe(200);
    expect(played.body.state).toBe('playing');
    await svc.api('PUT', '/svc/pipeline/pt-put/stop');
    expect((await svc.api('DELETE', '/svc/pipeline/pt-put')).status).toBe(204);
  });

  it('play of a source that became AV1 answers 409 and keeps the pipeline ready, with last_error and health failing', async () => {
    const source = join(dir, 'changing.mkv');
    copyFileSync(h264Clip, source);
    const created = await svc.api('POST', '/svc/pipeline', relay('pt-play', source, join(dir, 'play.ts')));
    expect(created.status, created.text).toBe(201);
    expect((await svc.api('PUT', '/svc/pipeline/pt-play/stop')).status).toBe(200);

    replaceSource(source, av1Clip);
    const r = await svc.api('PUT', '/svc/pipeline/pt-play/play');
    expect(r.status, r.text).toBe(409);
    expect(r.body.code).toBe('PIPELINE_CONFLICT');
    expect(r.body.message).toBe(`the pipeline cannot play what its source sends: the source's video is av1: output.uri: a .ts file cannot carry av1`);
    const view = (await svc.api('GET', '/svc/pipeline/pt-play')).body;
    expect(view.state).toBe('ready');
    expect(view.last_error).toBe(`the source's video is av1: output.uri: a .ts file cannot carry av1`);
    expect(view.health).toBe('failing');
    expect(view.health_reason).toContain('cannot carry av1');

    // The source is H.264 again: the same definition plays, and the failure is cleared.
    replaceSource(source, h264Clip);
    const again = await svc.api('PUT', '/svc/pipeline/pt-play/play');
    expect(again.status, again.text).toBe(200);
    expect(again.body.state).toBe('playing');
    expect(again.body.last_error).toBeNull();
    await svc.api('PUT', '/svc/pipeline/pt-play/stop');
    expect((await svc.api('DELETE', '/svc/pipeline/pt-play')).status).toBe(204);
  });
});

describe('after a restart', () => {
  it('an auto-start whose source became AV1 stays ready, with last_error and health failing, and the service is ready', async () => {
    const source = join(dir, 'restored.mkv');
    copyFileSync(h264Clip, source);
    const own = await startService({ args: ['--start-timeout-ms', '6000'] });
    try {
      const created = await own.api('POST', '/svc/pipeline', relay('pt-restore', source, join(dir, 'restore.ts')));
      expect(created.status, created.text).toBe(201);
      expect((await own.api('POST', '/svc/pipeline/pt-restore/store', { auto_start: true })).status).toBe(201);
    } finally {
      await own.stop();
    }
    replaceSource(source, av1Clip);
    const again = await startService({ dataDir: own.dataDir, args: ['--start-timeout-ms', '6000'] });
    try {
      const view = await waitFor(async () => {
        const v = (await again.api('GET', '/svc/pipeline/pt-restore')).body;
        return v.last_error ? v : null;
      }, 20000);
      expect(view.state).toBe('ready');
      expect(view.persisted).toBe(true);
      expect(view.last_error).toBe(`the source's video is av1: output.uri: a .ts file cannot carry av1`);
      expect(view.health).toBe('failing');
      expect(view.health_reason).toContain('cannot carry av1');
      expect((await again.api('GET', '/svc/healthz')).status).toBe(200);
    } finally {
      await again.stop();
    }
  });
});
