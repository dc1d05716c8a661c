/**
 * Hostile strings through the real API: ids, source and output URIs, labels, overlay text, device and interface
 * names carrying `!`, quotes, spaces, newlines, NUL and `name=` tricks. Each injection attempt names a marker
 * file that an injected `filesink` would create; none may appear. Every attempt is either refused with 400 or
 * runs writing exactly the path it was given. Nothing answers 5xx.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { h264Body, sleep, startService, waitFor, type RunningService } from '../helpers/service';

describe('hostile input through the API', () => {
  let svc: RunningService;
  let dir: string;
  let marker: string;
  let tmpMarker: string;
  let n = 0;
  const nextId = () => `hostile-${++n}`;

  beforeAll(async () => {
    svc = await startService();
    dir = mkdtempSync(join(tmpdir(), 'encoderd-hostile-'));
    const tag = randomBytes(6).toString('hex');
    marker = join(dir, `pwned-${tag}`);
    tmpMarker = `/tmp/pwned-${tag}`;
  });
  afterAll(async () => {
    await svc?.stop();
    expect(existsSync(tmpMarker)).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });

  function noInjection(): void {
    expect(existsSync(marker), 'injected filesink created its file').toBe(false);
    expect(existsSync(tmpMarker), 'injected filesink created its file').toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('pwned')), 'injected element wrote into the test dir').toEqual([]);
  }

  const tricks = (m: string) => [
    `" ! filesink location=${m} name=x ! fakesink x="`,
    ` ! filesink location=${m}`,
    `\n! filesink location=${m}`,
    `' ! filesink location=${m} '`,
    `\\" ! filesink location=${m} !`,
    `" name="evil" location="${m}`,
    `\0 ! filesink location=${m}`,
  ];

  /** Stops (files are finalised) and deletes. */
  async function remove(id: string): Promise<void> {
    const path = `/svc/pipeline/${encodeURIComponent(id)}`;
    expect((await svc.api('PUT', `${path}/stop`)).status).toBe(200);
    const del = await svc.api('DELETE', path);
    expect(del.status, del.text).toBe(204);
  }

  /**
   * Creates (or is refused), then removes; returns the status of the create. unreachable: the source is a
   * network address nobody serves, so a URI taken literally fails to start (504 PIPELINE_START_TIMEOUT, the
   * spec's answer) — it is created all the same and must be removed.
   */
  async function attempt(body: unknown, unreachable = false): Promise<number> {
    const r = await svc.api('POST', '/svc/pipeline', body);
    if (unreachable && r.status === 504) {
      expect(r.body.code).toBe('PIPELINE_START_TIMEOUT');
      const id = (body as { id: string }).id;
      if ((await svc.api('GET', `/svc/pipeline/${encodeURIComponent(id)}`)).status === 200) await remove(id);
      return r.status;
    }
    expect(r.status, r.text).toBeLessThan(500);
    if (r.status === 201) {
      await sleep(300);
      await remove((body as { id: string }).id);
    } else {
      expect(r.status, r.text).toBe(400);
      expect(r.body.code).toBe('VALIDATION_ERROR');
      expect(r.body.details.errors.length).toBeGreaterThan(0);
    }
    return r.status;
  }

  it('a file output path full of pipeline syntax is written exactly as named', async () => {
    const names = [
      `a" ! filesink location=${marker} name=x ! fakesink x=".ts`,
      `b ! filesink location=${marker} name=sink0.ts`,
      `"c ! identity name=q".mkv`,
      '"NULL".mkv',
      `d\\" ! filesink location=${marker} !.ts`,
      `e' name=evil ${randomBytes(2).toString('hex')}.mp4`,
    ];
    for (const name of names) {
      const path = join(dir, name);
      mkdirSync(dirname(path), { recursive: true });
      const id = nextId();
      const r = await svc.api('POST', '/svc/pipeline', h264Body(id, path));
      expect(r.status, r.text).toBe(201);
      expect(r.body.output.uri).toBe(path);
      await waitFor(() => existsSync(path) && statSync(path).size > 0, 10_000);
      await remove(id);
      expect(statSync(path).size, name).toBeGreaterThan(0);
      noInjection();
    }
  });

  it('file:// output URIs decode to the exact path; %00 is refused', async () => {
    const name = `f" ! filesink location=pwned name=y\n.ts`;
    const uri = `file://${dir}/${encodeURIComponent(name)}`;
    const id = nextId();
    const r = await svc.api('POST', '/svc/pipeline', h264Body(id, uri));
    expect(r.status, r.text).toBe(201);
    await waitFor(() => existsSync(join(dir, name)) && statSync(join(dir, name)).size > 0, 10_000);
    await remove(id);
    noInjection();

    const nul = await svc.api('POST', '/svc/pipeline', h264Body(nextId(), `file://${dir}/g%00${encodeURIComponent(` ! filesink location=${marker}`)}.ts`));
    expect(nul.status, nul.text).toBe(400);
    expect(nul.body.code).toBe('VALIDATION_ERROR');
    const rawNul = await svc.api('POST', '/svc/pipeline', h264Body(nextId(), `${dir}/h\0.ts`));
    expect(rawNul.status, rawNul.text).toBe(400);
  });

  it('ids carrying syntax are refused and never reach a description or a path', async () => {
    for (const id of ['a!b', 'a"b', 'a b', 'a\nb', 'a\0b', 'name=x', '../etc', 'x'.repeat(65), ...tricks(marker)]) {
      expect(await attempt(h264Body(id, join(dir, 'id.ts'))), JSON.stringify(id)).toBe(400);
    }
    for (const id of ['a"b', 'a b', '..', '%00', 'x" ! y']) {
      const r = await svc.api('GET', `/svc/pipeline/${encodeURIComponent(id)}`);
      expect([400, 404], `${id}: ${r.text}`).toContain(r.status);
      expect(r.body.code).toBeDefined();
    }
    noInjection();
  });

  it('source URIs, UDP outputs, interface and device names with syntax are refused or taken literally', async () => {
    for (const t of tricks(marker)) {
      await attempt(h264Body(nextId(), join(dir, `src-${n}.ts`), { source: { uri: `test://ball${t}` } }));
      await attempt(h264Body(nextId(), join(dir, `rtsp-${n}.ts`), { source: { uri: `rtsp://127.0.0.1:1/x${t}` } }), true);
      await attempt(h264Body(nextId(), join(dir, `udp-${n}.ts`), { source: { uri: `udp://127.0.0.1:5${t}` } }), true);
      await attempt(h264Body(nextId(), `udp://127.0.0.1:5000${t}`));
      await attempt(h264Body(nextId(), `udp://lo${t}@239.1.2.3:5000`));
      await attempt(h264Body(nextId(), 'udp://239.1.2.3:5000', { output: { uri: 'udp://239.1.2.3:5000', network_interface: `lo${t}` } }));
      await attempt(h264Body(nextId(), join(dir, `audio-${n}.ts`), { audio: { source: 'local', device: `hw:0,0${t}` } }));
      noInjection();
    }
  });

  it('multiview labels and overlay text with syntax are refused or drawn literally', async () => {
    for (const t of tricks(marker)) {
      await attempt({
        id: nextId(),
        mode: 'multiview',
        inputs: [
          { source: { uri: 'test://ball' }, label: `cam${t}`, overlay: { text: `text${t}` } },
          { source: { uri: 'test://smpte' }, label: t, overlay: { text: t } },
        ],
        encoding: { bitrate: 300, width: 320, height: 240, fps: 15 },
        output: { uri: join(dir, `mv-${n}.mkv`) },
      });
      noInjection();
    }
  });
});
