/**
 * Multiview end to end over HTTPS against the real service: real compositor and AV1 encoder in the engine host, the
 * recording decoded again by GStreamer (av1dec) and its pixels sampled per cell. AV1 is kept cheap (320×240, 10 fps,
 * a few seconds): libaom at quality 5 (cpu-used 8) takes a fraction of one of this machine's two cores at that size.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, h264Body, hostPidsByPipeline, run, sleep, startService, udpReceiver, waitFor, type RunningService } from '../helpers/service';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

const W = 320;
const H = 240;
const ENCODING = { bitrate: 300, width: W, height: H, fps: 10 };

type Rgb = [number, number, number];

function body(id: string, inputs: unknown[], extra: Record<string, unknown> = {}) {
  return { id, mode: 'multiview', inputs, encoding: ENCODING, output: { uri: join(svc.dataDir, `${id}.mkv`) }, ...extra };
}

const test = (pattern: string, more: Record<string, unknown> = {}) => ({ source: { uri: `test://${pattern}` }, ...more });

/** Creates (and so starts) a multiview recording, lets it run, stops it (the file is finalised) and returns its path. */
async function record(b: ReturnType<typeof body>, ms = 2500): Promise<string> {
  const r = await svc.api('POST', '/svc/pipeline', b);
  expect(r.status, r.text).toBe(201);
  expect(r.body).toMatchObject({ state: 'playing', encoding: { codec: 'av1', quality: 5, width: W, height: H } });
  await sleep(ms);
  expect((await svc.api('PUT', `/svc/pipeline/${b.id}/stop`)).status).toBe(200);
  return b.output.uri;
}

async function probe(file: string): Promise<string> {
  const r = await run('ffprobe', ['-v', 'error', '-select_streams', 'v', '-show_entries', 'stream=codec_name,width,height', '-of', 'csv=p=0', file]);
  return r.stdout.trim();
}

/**
 * A frame half a second before the end of an AV1 Matroska file, as RGB, decoded by GStreamer's own AV1 decoder. Not
 * the very last: on stop each input ends on its own, and the compositor draws an ended input's cell black for the
 * last frame or two (docs/multiview.md).
 */
async function frameNearEnd(file: string): Promise<(x: number, y: number) => Rgb> {
  const raw = `${file}.rgb`;
  const r = await run('gst-launch-1.0', ['-q', 'filesrc', `location=${file}`, '!', 'matroskademux', '!', 'av1parse', '!', 'av1dec', '!',
    'videoconvert', '!', `video/x-raw,format=RGB,width=${W},height=${H}`, '!', 'filesink', `location=${raw}`]);
  expect(r.code, r.stderr).toBe(0);
  const data = readFileSync(raw);
  const size = W * H * 3;
  const back = (ENCODING.fps / 2) * size;
  expect(data.length).toBeGreaterThanOrEqual(back + size);
  const frame = data.subarray(data.length - back - size, data.length - back);
  // The mean of a 5×5 block: coding noise at block edges does not decide a colour.
  return (x, y) => {
    const sum: Rgb = [0, 0, 0];
    for (let dy = -2; dy <= 2; dy++) {
      for (let dx = -2; dx <= 2; dx++) {
        const o = ((y + dy) * W + (x + dx)) * 3;
        for (let c = 0; c < 3; c++) sum[c] += frame[o + c];
      }
    }
    return sum.map((v) => Math.round(v / 25)) as Rgb;
  };
}

/** The nearest of the test colours (videotestsrc's solid patterns), or grey for an unsaturated mid tone. */
function colour([r, g, b]: Rgb): string {
  const spread = Math.max(r, g, b) - Math.min(r, g, b);
  if (spread < 30) return r < 40 ? 'black' : r > 215 ? 'white' : 'grey';
  const named: Record<string, Rgb> = { red: [255, 0, 0], green: [0, 255, 0], blue: [0, 0, 255] };
  let best = '';
  let bestD = Infinity;
  for (const [name, [R, G, B]] of Object.entries(named)) {
    const d = (r - R) ** 2 + (g - G) ** 2 + (b - B) ** 2;
    if (d < bestD) [best, bestD] = [name, d];
  }
  return best;
}

describe('layout', () => {
  it('1 input fills the frame; 2 side by side; 3 a 2×2 grid with a black 4th cell; 4 a full grid', async () => {
    // The four recordings run at once: four small AV1 encoders fit on two cores.
    const files = await Promise.all([
      record(body('one', [test('red')])),
      record(body('two', [test('red'), test('green')])),
      record(body('three', [test('red'), test('green'), test('blue')])),
      record(body('four', [test('red'), test('green'), test('blue'), test('white')])),
    ]);
    for (const f of files) expect(await probe(f)).toBe(`av1,${W},${H}`);
    const [one, two, three, four] = await Promise.all(files.map(frameNearEnd));
    expect([one(40, 40), one(160, 120), one(280, 200)].map(colour)).toEqual(['red', 'red', 'red']);
    expect([two(80, 120), two(240, 120)].map(colour)).toEqual(['red', 'green']);
    expect([two(20, 20), two(300, 220)].map(colour)).toEqual(['red', 'green']);
    const grid = (px: (x: number, y: number) => Rgb) => [px(80, 60), px(240, 60), px(80, 180), px(240, 180)].map(colour);
    expect(grid(three)).toEqual(['red', 'green', 'blue', 'black']);
    expect(grid(four)).toEqual(['red', 'green', 'blue', 'white']);
  });
});

describe('per-input stages', () => {
  it('grayscale turns a colour cell grey; crop, rotate and mirror negotiate; a hostile label stays text', async () => {
    const evil = join(svc.dataDir, 'evil-label');
    const label = `" ! filesink location=${evil}`;
    const file = await record(body('stages', [
      test('red', { transform: { grayscale: true, rotate: 90, mirror: true }, crop: { top: 20, left: 10, right: 30 } }),
      test('green', { label, overlay: { text: '" name=x', timestamp: true } }),
      test('blue', { transform: { rotate: 270 }, crop: { bottom: 40 } }),
      test('red', { transform: { rotate: 180, mirror: true } }),
    ]));
    expect(await probe(file)).toBe(`av1,${W},${H}`);
    const px = await frameNearEnd(file);
    expect([px(80, 60), px(240, 60), px(80, 180), px(240, 180)].map(colour)).toEqual(['grey', 'green', 'blue', 'red']);
    // The label is drawn as white text along the top of its cell: plain green has no red in it, the text does.
    let lit = 0;
    for (let y = 6; y < 30; y += 4) for (let x = 165; x < 315; x += 4) if (px(x, y)[0] > 80) lit++;
    expect(lit).toBeGreaterThan(10);
    expect(existsSync(evil)).toBe(false);
    const view = await svc.api('GET', '/svc/pipeline/stages');
    expect(view.body.inputs[1].label).toBe(label);
  });
});

describe('framegrabs', () => {
  it('are stills of the composed picture at the encoding size', async () => {
    const b = body('stills', [test('red'), test('green')]);
    expect((await svc.api('POST', '/svc/pipeline', b)).status).toBe(201);
    expect((await svc.api('PUT', '/svc/pipeline/stills/framegrab/start', { interval_seconds: 1 })).status).toBe(200);
    const list = await waitFor(async () => {
      const l = await svc.api('GET', '/svc/files/framegrabs?pipeline_id=stills');
      return l.body.length ? l.body : null;
    }, 8000);
    await svc.api('PUT', '/svc/pipeline/stills/stop');
    const jpeg = join(svc.dataDir, 'framegrabs', 'stills', list[0].file);
    const r = await run('ffprobe', ['-v', 'error', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', jpeg]);
    expect(r.stdout.trim()).toBe(`${W},${H}`);
  });
});

describe('mixed sources', () => {
  it('a test source beside a UDP stream from another encoderd pipeline; the stream keeps its aspect ratio in its cell', async () => {
    const port = await freePort();
    // The sender: simple mode, green test pattern as H.264 in MPEG-TS over UDP to 127.0.0.1.
    const sender = h264Body('sender', `udp://127.0.0.1:${port}`, { source: { uri: 'test://green' }, encoding: { codec: 'h264', bitrate: 300, width: 320, height: 240, fps: 10 } });
    expect((await svc.api('POST', '/svc/pipeline', sender)).status).toBe(201);
    try {
      const file = await record(body('mixed', [test('red'), { source: { uri: `udp://127.0.0.1:${port}` } }]), 6000);
      expect(await probe(file)).toBe(`av1,${W},${H}`);
      const px = await frameNearEnd(file);
      // The 4:3 stream fitted into a 160×240 cell: 160×120 in the middle, black above and below.
      expect([px(80, 120), px(240, 120), px(240, 20), px(240, 220)].map(colour)).toEqual(['red', 'green', 'black', 'black']);
    } finally {
      await svc.api('PUT', '/svc/pipeline/sender/stop');
    }
  });
});

describe('validation and conflicts', () => {
  it('one camera in two inputs is a 409 naming it, found before anything starts', async () => {
    // No V4L2 device exists in this container; the claim check runs before any start, so the device is never opened.
    const r = await svc.api('POST', '/svc/pipeline', body('cam2', [{ source: { uri: 'file:///dev/video0' } }, test('red'), { source: { uri: 'file:///dev/video0' } }]));
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('PIPELINE_CONFLICT');
    expect(r.body.message).toContain('/dev/video0');
    expect(r.body.message).toContain('cam2');
    expect((await svc.api('GET', '/svc/pipeline/cam2')).status).toBe(404);
  });

  it('another codec or quality is refused; left out, the encoding is AV1 at quality 5 with the defaults', async () => {
    const h264 = await svc.api('POST', '/svc/pipeline', { ...body('codec', [test('red')]), encoding: { ...ENCODING, codec: 'h264' } });
    expect(h264.status).toBe(400);
    expect(h264.body.code).toBe('VALIDATION_ERROR');
    expect(h264.body.details.errors).toContain('encoding.codec must be av1 in multiview mode (multiview always encodes av1), or left out');
    const quality = await svc.api('POST', '/svc/pipeline', { ...body('quality', [test('red')]), encoding: { ...ENCODING, quality: 8 } });
    expect(quality.status).toBe(400);
    expect(quality.body.details.errors).toContain('encoding.quality is fixed at 5 in multiview mode, or left out');
    const explicit = await svc.api('POST', '/svc/pipeline', {
      ...body('explicit', [test('red')]), encoding: { ...ENCODING, codec: 'av1', quality: 5 }, on_demand: true, output: { uri: `rtsp://127.0.0.1:${await freePort()}/mv` },
    });
    expect(explicit.status, explicit.text).toBe(201);
    // On demand: nothing plays until an RTSP client comes, so the 1280×720 default never runs here.
    const defaults = await svc.api('POST', '/svc/pipeline', { id: 'defaults', mode: 'multiview', inputs: [test('red')], on_demand: true, output: { uri: `rtsp://127.0.0.1:${await freePort()}/mv` } });
    expect(defaults.status, defaults.text).toBe(201);
    expect(defaults.body.encoding).toEqual({ codec: 'av1', bitrate: 1000, width: 1280, height: 720, fps: 30, quality: 5 });
    for (const id of ['explicit', 'defaults']) expect((await svc.api('DELETE', `/svc/pipeline/${id}`)).status).toBe(204);
  });

  it('inputs are validated by their source plugins, each message naming its input', async () => {
    const r = await svc.api('POST', '/svc/pipeline', body('bad', [test('red'), { source: { uri: 'test://nope' } }, { source: { uri: 'gopher://x' } }, { source: { uri: 'file:///dev/videoX' } }]));
    expect(r.status).toBe(400);
    expect(r.body.details.errors).toEqual(expect.arrayContaining([
      expect.stringMatching(/^inputs\[1\]\.source\.uri test pattern must be one of /),
      'inputs[2].source.uri scheme is not supported',
      'inputs[3].source.uri must be file:///dev/videoN for a camera',
    ]));
    const five = await svc.api('POST', '/svc/pipeline', body('five', [1, 2, 3, 4, 5].map(() => test('red'))));
    expect(five.body.details.errors).toContain('inputs must have at most 4 items');
    const ts = await svc.api('POST', '/svc/pipeline', { ...body('ts', [test('red')]), output: { uri: join(svc.dataDir, 'mv.ts') } });
    expect(ts.body.details.errors).toContain('output.uri: a .ts file cannot carry av1');
    const tiny = await svc.api('POST', '/svc/pipeline', { ...body('tiny', [test('red'), test('green')]), encoding: { ...ENCODING, width: 1 } });
    expect(tiny.body.details.errors).toContain('encoding.width must be at least 2 for 2 inputs');
  });
});

describe('encoding patch', () => {
  it('bitrate changes live in the same engine host; fps rebuilds the pipeline', async () => {
    const port = await freePort();
    const rx = await udpReceiver(port);
    try {
      // AV1 over UDP is an RTP bundle (payload type 96). Snow in one cell makes the encoder spend what it is given;
      // at 100 kbit/s libaom's coarsest quantizer still needs a few hundred, so the test asks for a large step.
      const inputs = [test('snow'), test('red'), test('green'), test('blue')];
      const b = { ...body('patchmv', inputs), encoding: { ...ENCODING, bitrate: 100 }, output: { uri: `udp://127.0.0.1:${port}` } };
      const created = await svc.api('POST', '/svc/pipeline', b);
      expect(created.status, created.text).toBe(201);
      const pid = (await hostPidsByPipeline(svc.child.pid!)).get('patchmv');
      // Two seconds of the low rate on the wire before the change.
      await waitFor(() => rx.packets.length > 0 && Date.now() - rx.packets[0].at > 2500, 15000, 100);
      const t0 = Date.now();
      const low = kbps(rx.packets, t0 - 2000, t0);
      const patched = await svc.api('PATCH', '/svc/pipeline/patchmv', { encoding: { bitrate: 2500 } });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body).toMatchObject({ state: 'playing', encoding: { codec: 'av1', bitrate: 2500, quality: 5 } });
      // The encoder's rate control takes a moment to spend more, longer on a loaded machine: wait for a two-second
      // window that carries twice the low rate, rather than for a fixed time.
      let high = 0;
      let window = 0;
      await waitFor(() => {
        window = Date.now();
        high = kbps(rx.packets, window - 2000, window);
        return window - t0 > 2000 && high > 2 * low;
      }, 20000, 250).catch(() => undefined);
      expect(high, `low ${low} high ${high}`).toBeGreaterThan(2 * low);
      expect((await hostPidsByPipeline(svc.child.pid!)).get('patchmv')).toBe(pid);

      // Frames per second on the wire: one RTP timestamp per frame.
      expect(frameRate(rx.packets, window - 2000, window)).toBeGreaterThan(7);
      const t1 = Date.now();
      const slower = await svc.api('PATCH', '/svc/pipeline/patchmv', { encoding: { fps: 4 } });
      expect(slower.status, slower.text).toBe(200);
      expect(slower.body).toMatchObject({ state: 'playing', encoding: { fps: 4, bitrate: 2500 } });
      await waitFor(() => rx.packets.some((p) => p.at > t1 + 3500), 8000);
      const after = rx.packets.filter((p) => p.at > t1).at(-1)!.at;
      expect(frameRate(rx.packets, after - 2000, after)).toBeLessThan(6);
      expect((await svc.api('PUT', '/svc/pipeline/patchmv/stop')).status).toBe(200);
    } finally {
      rx.close();
    }
  });
});

function kbps(packets: Array<{ at: number; data: Buffer }>, from: number, to: number): number {
  const bytes = packets.filter((p) => p.at >= from && p.at < to).reduce((n, p) => n + p.data.length, 0);
  return (bytes * 8) / (to - from);
}

/** Distinct RTP timestamps of payload type 96 per second between from and to. */
function frameRate(packets: Array<{ at: number; data: Buffer }>, from: number, to: number): number {
  const stamps = new Set(packets.filter((p) => p.at >= from && p.at < to && (p.data[1] & 0x7f) === 96).map((p) => p.data.readUInt32BE(4)));
  return (stamps.size * 1000) / (to - from);
}
