/**
 * The example vendor plugin (examples/plugins/vp8) loaded by the real service with --plugins-dir: listed by
 * /svc/version, encoding VP8 in simple mode and through its macro in advanced mode (checked with
 * gst-discoverer-1.0), and gated by its licence feature.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { licenceFiles, licenceText, vendor } from '../licence/sign';
import { ROOT, run, sleep, startService, type RunningService } from '../helpers/service';

const PLUGINS = join(ROOT, 'examples/plugins');
const VIDEO = 'videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1';
const discover = async (file: string) => (await run('gst-discoverer-1.0', [file], { timeoutMs: 20000 })).stdout;

describe('unrestricted service with --plugins-dir examples/plugins', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ args: ['--plugins-dir', PLUGINS] });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('GET /svc/version lists the vendor plugin', async () => {
    const r = await svc.api('GET', '/svc/version');
    expect(r.body.plugins).toContainEqual({ name: 'vp8', kind: 'codec', version: '1.0.0', origin: 'vendor' });
    expect(svc.logs()).toContain('vendor plugin loaded');
  });

  it('advanced mode: <svc:vp8 bitrate=300 /> records VP8 into Matroska', async () => {
    const file = `${svc.dataDir}/vp8-macro.mkv`;
    const raw = `${VIDEO} ! <svc:vp8 bitrate=300 /> ! matroskamux ! filesink location=${file}`;
    const r = await svc.api('POST', '/svc/pipeline', { id: 'vp8-adv', mode: 'advanced', raw_pipeline: raw });
    expect(r.status, r.text).toBe(201);
    expect(r.body.raw_pipeline).toBe(raw);
    await sleep(1500);
    await svc.api('PUT', '/svc/pipeline/vp8-adv/stop');
    const info = await discover(file);
    expect(info).toMatch(/video #\d+: VP8/);
    expect(info).toContain('Width: 320');
  });

  it('advanced mode: bad macro values are refused by the vendor macro declaration', async () => {
    const r = await svc.api('POST', '/svc/pipeline', { id: 'vp8-bad', mode: 'advanced', raw_pipeline: `${VIDEO} ! <svc:vp8 bitrate=9000 /> ! fakesink` });
    expect(r.status).toBe(400);
    expect(r.body.details.errors).toEqual(['raw_pipeline macro <svc:vp8 bitrate=9000 />: bitrate must be between 5 and 5000']);
  });

  it('simple mode: encoding.codec vp8 into .mkv, live bitrate patch, and the plugin\'s own validation', async () => {
    const file = `${svc.dataDir}/vp8-simple.mkv`;
    const body = { id: 'vp8-simple', mode: 'simple', source: { uri: 'test://ball' }, encoding: { codec: 'vp8', bitrate: 400, width: 320, height: 240, fps: 30 }, output: { uri: file } };
    const r = await svc.api('POST', '/svc/pipeline', body);
    expect(r.status, r.text).toBe(201);
    const p = await svc.api('PATCH', '/svc/pipeline/vp8-simple', { encoding: { bitrate: 800 } });
    expect(p.status, p.text).toBe(200);
    expect(p.body.encoding.bitrate).toBe(800);
    await sleep(1000);
    await svc.api('PUT', '/svc/pipeline/vp8-simple/stop');
    expect(await discover(file)).toMatch(/video #\d+: VP8/);
    // The vendor's validate(): VP8 frames are at most 16383 pixels wide.
    const big = await svc.api('POST', '/svc/pipeline', { ...body, id: 'vp8-big', encoding: { ...body.encoding, width: 16384 } });
    expect(big.status).toBe(400);
    expect(big.body.details.errors).toContain('encoding.width must be at most 16383 for vp8');
    // The plugin declares Matroska only: the file output refuses .ts for it.
    const ts = await svc.api('POST', '/svc/pipeline', { ...body, id: 'vp8-ts', output: { uri: `${svc.dataDir}/x.ts` } });
    expect(ts.status).toBe(400);
    expect(ts.body.details.errors).toContain('output.uri: a .ts file cannot carry vp8');
  });
});

it('the vendor plugin claims its licence feature: a licence without vp8 refuses it (402), one with vp8 allows it', async () => {
  const v = vendor();
  const without = licenceFiles(v, licenceText(v, { licensee: 'ACME', codecs: ['h264'], max_streams: 4 }));
  const svc = await startService({ args: ['--plugins-dir', PLUGINS, '--licence', without.licence, '--licence-key', without.key] });
  try {
    const raw = `${VIDEO} ! <svc:vp8 /> ! fakesink`;
    const r = await svc.api('POST', '/svc/pipeline', { id: 'vp8-lic', mode: 'advanced', raw_pipeline: raw });
    expect(r.status).toBe(402);
    expect(r.body).toEqual({ code: 'LICENSE_ERROR', message: 'codec not licensed: vp8' });
  } finally {
    await svc.stop();
  }
  const withVp8 = licenceFiles(v, licenceText(v, { licensee: 'ACME', codecs: ['vp8'], max_streams: 4 }));
  const svc2 = await startService({ args: ['--plugins-dir', PLUGINS, '--licence', withVp8.licence, '--licence-key', withVp8.key] });
  try {
    const r = await svc2.api('POST', '/svc/pipeline', { id: 'vp8-lic', mode: 'advanced', raw_pipeline: `${VIDEO} ! <svc:vp8 /> ! fakesink` });
    expect(r.status, r.text).toBe(201);
    expect(r.body.state).toBe('playing');
    await svc2.api('PUT', '/svc/pipeline/vp8-lic/stop');
  } finally {
    await svc2.stop();
  }
});
