// KLV end to end through the real service over HTTPS (docs/klv.md): geolocation PATCHed into a UDP MPEG-TS output,
// received at a Node socket, demuxed by gst-launch-1.0's tsdemux and ffprobe, decoded with core/klv; the same
// stream relayed into a UDP-source pipeline whose extracted KLV arrives as SSE `klv` events; a .ts recording.
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSt0601, type St0601Decoded } from '../../core/klv/st0601';
import { toPosition } from '../../core/klv/geolocation';
import { freePort, run, sleep, startService, waitFor, type RunningService } from '../helpers/service';
import { openSse } from '../helpers/sse';

// Half a step of each ST 0601 mapping (the encoder rounds to nearest), plus float slack.
const PREC = { lat: 90 / (2 ** 31 - 1) / 2 + 1e-12, lon: 180 / (2 ** 31 - 1) / 2 + 1e-12, alt: 19900 / 65535 / 2 + 1e-9, heading: 360 / 65535 / 2 + 1e-9 };
const GEO = { latitude: 48.137154, longitude: 11.576124, altitude: 519.5, heading: 123.4 };
const MGRS = { mgrs: '33UXP0500444998', altitude: 250, heading: 10 };
// 15 fps: a frame every 67 ms. mpegtsmux alignment=7 may keep a frame's last partial datagram until the next frame
// (2 periods); 250 ms leaves scheduling slack on a loaded machine and still fails the muxer waiting on its KLV
// input, which shows as 100 ms (packets stamped "now" at 10 Hz) to 1 s (1 Hz) bursts.
const MAX_GAP_MS = 250;

let svc: RunningService;
let dir: string;
beforeAll(async () => {
  svc = await startService();
  dir = mkdtempSync(join(tmpdir(), 'encoderd-klv-'));
});
afterAll(async () => {
  await svc?.stop();
});

const body = (id: string, source: string, output: string) => ({
  id, mode: 'simple', source: { uri: source }, encoding: { codec: 'h264', bitrate: 300, width: 320, height: 240, fps: 15, quality: 1 }, output: { uri: output },
});

/** Datagrams with arrival times; relayed to `relayPort` when given. */
function receiver(port: number, relayPort?: number): Promise<{ sock: Socket; got: Array<[number, Buffer]> }> {
  const sock = createSocket('udp4');
  const got: Array<[number, Buffer]> = [];
  sock.on('message', (m) => {
    got.push([performance.now(), m]);
    if (relayPort) sock.send(m, relayPort, '127.0.0.1');
  });
  return new Promise((resolve) => sock.bind(port, '127.0.0.1', () => resolve({ sock, got })));
}

/** The KLV of a .ts: ffprobe's streams and packet PTS, gst-launch tsdemux's meta/x-klv buffers decoded. */
async function klvOf(ts: string): Promise<{ streams: string; pts: Array<number | null>; packets: St0601Decoded[] }> {
  const probe = await run('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name,codec_tag_string', '-of', 'csv=p=0', ts]);
  const pk = await run('ffprobe', ['-v', 'error', '-select_streams', 'd', '-show_entries', 'packet=pts', '-of', 'json', ts]);
  const out = mkdtempSync(join(dir, 'pk-'));
  const demux = await run('gst-launch-1.0', ['-q', 'filesrc', `location=${ts}`, '!', 'tsdemux', '!', 'meta/x-klv', '!', 'multifilesink', `location=${out}/%05d.bin`], { timeoutMs: 20000 });
  expect(demux.code, demux.stderr).toBe(0);
  const packets = readdirSync(out).sort().map((f) => decodeSt0601(readFileSync(join(out, f))));
  const pts = (JSON.parse(pk.stdout).packets ?? []).map((p: { pts?: number }) => (typeof p.pts === 'number' ? p.pts : null));
  return { streams: probe.stdout, pts, packets };
}

function write(name: string, datagrams: Array<[number, Buffer]>): string {
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat(datagrams.map(([, b]) => b)));
  return path;
}

function maxGap(datagrams: Array<[number, Buffer]>): number {
  let max = 0;
  for (let i = 1; i < datagrams.length; i++) max = Math.max(max, datagrams[i][0] - datagrams[i - 1][0]);
  return max;
}

function expectPosition(d: St0601Decoded, want: { latitude: number; longitude: number; altitude: number; heading: number }) {
  expect(d.checksumOk).toBe(true);
  expect(Math.abs(d.latitude! - want.latitude)).toBeLessThanOrEqual(PREC.lat);
  expect(Math.abs(d.longitude! - want.longitude)).toBeLessThanOrEqual(PREC.lon);
  expect(Math.abs(d.altitude! - want.altitude)).toBeLessThanOrEqual(PREC.alt);
  expect(Math.abs(d.heading! - want.heading)).toBeLessThanOrEqual(PREC.heading);
}

describe('KLV over UDP MPEG-TS', () => {
  it('geolocation (lat/lon, MGRS, null) into the stream live; extraction from a UDP source as SSE klv events', async () => {
    const outPort = await freePort();
    const inPort = await freePort();
    const { sock, got } = await receiver(outPort, inPort);
    try {
      let r = await svc.api('POST', '/svc/pipeline', body('klv-out', 'test://ball', `udp://127.0.0.1:${outPort}`));
      expect(r.status, r.text).toBe(201);
      expect(r.body.klv).toEqual({ available: false });
      // A test source carries no KLV: nothing to extract.
      r = await svc.api('PUT', '/svc/pipeline/klv-out/klv/start');
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('PIPELINE_CONFLICT');

      r = await svc.api('POST', '/svc/pipeline', body('klv-in', `udp://127.0.0.1:${inPort}`, `udp://127.0.0.1:${await freePort()}`));
      expect(r.status, r.text).toBe(201);

      // Phase A: latitude/longitude.
      r = await svc.api('PATCH', '/svc/pipeline/klv-out', { geolocation: GEO });
      expect(r.status, r.text).toBe(200);
      expect(r.body.state).toBe('playing');
      expect(r.body.geolocation).toEqual(GEO);
      await sleep(800);
      let from = got.length;
      await sleep(2500);
      const phaseA = got.slice(from);
      expect(maxGap(phaseA), `largest gap between datagrams`).toBeLessThan(MAX_GAP_MS);
      const a = await klvOf(write('a.ts', phaseA));
      expect(a.streams).toMatch(/klv,data,KLVA/);
      expect(a.packets.length).toBeGreaterThanOrEqual(15); // 10 a second
      expect(a.pts.length).toBeGreaterThan(0);
      expect(a.pts.every((p) => p !== null)).toBe(true);
      for (const d of a.packets) expectPosition(d, GEO);
      for (const d of a.packets) expect(d.version).toBe(19);

      // The relayed stream feeds klv-in: its KLV becomes available, then klv events while running.
      await waitFor(async () => (await svc.api('GET', '/svc/pipeline/klv-in')).body.klv?.available === true, 15000);
      const sse = await openSse(svc.port, '/svc/pipeline/klv-in/status/events');
      try {
        r = await svc.api('PUT', '/svc/pipeline/klv-in/klv/start');
        expect(r.status, r.text).toBe(200);
        expect(r.body.klv).toEqual({ available: true, state: 'running' });
        const ev = await sse.next((e) => e.event === 'klv', 5000);
        expect(ev.data.pipeline_id).toBe('klv-in');
        expect(ev.data.checksum_ok).toBe(true);
        expect(typeof ev.data.pts_ns).toBe('number');
        expect(Number.isNaN(Date.parse(ev.data.timestamp))).toBe(false);
        expectPosition({ ...ev.data, checksumOk: true, other: {} }, GEO);

        // Phase B: MGRS, the centre of its square.
        r = await svc.api('PATCH', '/svc/pipeline/klv-out', { geolocation: MGRS });
        expect(r.status, r.text).toBe(200);
        const centre = { ...toPosition(MGRS), altitude: MGRS.altitude, heading: MGRS.heading } as Required<ReturnType<typeof toPosition>>;
        await sleep(800);
        from = got.length;
        await sleep(2000);
        const phaseB = got.slice(from);
        expect(maxGap(phaseB), `largest gap between datagrams`).toBeLessThan(MAX_GAP_MS);
        const b = await klvOf(write('b.ts', phaseB));
        expect(b.packets.length).toBeGreaterThanOrEqual(10);
        for (const d of b.packets) expectPosition(d, centre);
        const evB = await sse.next((e) => e.event === 'klv' && Math.abs(e.data.latitude - centre.latitude) <= PREC.lat, 5000);
        expect(Math.abs(evB.data.longitude - centre.longitude)).toBeLessThanOrEqual(PREC.lon);

        r = await svc.api('PUT', '/svc/pipeline/klv-in/klv/stop');
        expect(r.status).toBe(200);
        expect(r.body.klv).toEqual({ available: true, state: 'stopped' });
        await sleep(300);
        const count = sse.events.filter((e) => e.event === 'klv').length;
        await sleep(700);
        expect(sse.events.filter((e) => e.event === 'klv').length).toBe(count);
        expect((await svc.api('GET', '/svc/pipeline/klv-in')).body.klv).toEqual({ available: true, state: 'stopped' });
      } finally {
        sse.close();
      }

      // Phase C: geolocation null: the stream goes on with time stamp and version only.
      r = await svc.api('PATCH', '/svc/pipeline/klv-out', { geolocation: null });
      expect(r.status, r.text).toBe(200);
      expect(r.body.geolocation).toBeNull();
      await sleep(800);
      from = got.length;
      await sleep(2000);
      const phaseC = got.slice(from);
      expect(maxGap(phaseC), `largest gap between datagrams`).toBeLessThan(MAX_GAP_MS);
      const c = await klvOf(write('c.ts', phaseC));
      expect(c.packets.length).toBeGreaterThanOrEqual(10);
      for (const d of c.packets) {
        expect(d.checksumOk).toBe(true);
        expect(d.timestampUs).toBeDefined();
        expect(d.latitude).toBeUndefined();
        expect(d.longitude).toBeUndefined();
        expect(d.heading).toBeUndefined();
      }
    } finally {
      sock.close();
      for (const id of ['klv-out', 'klv-in']) {
        await svc.api('PUT', `/svc/pipeline/${id}/stop`);
        await svc.api('DELETE', `/svc/pipeline/${id}`);
      }
    }
  }, 90_000);

  it('a .ts recording carries the KLV stream; the position set before start is in it from the first packets', async () => {
    const path = join(dir, 'rec.ts');
    let r = await svc.api('POST', '/svc/pipeline', body('klv-rec', 'test://ball', path));
    expect(r.status, r.text).toBe(201);
    r = await svc.api('PATCH', '/svc/pipeline/klv-rec', { geolocation: GEO });
    expect(r.status).toBe(200);
    await sleep(2000);
    r = await svc.api('PUT', '/svc/pipeline/klv-rec/stop');
    expect(r.status).toBe(200);
    const k = await klvOf(path);
    expect(k.streams).toMatch(/klv,data,KLVA/);
    expect(k.packets.length).toBeGreaterThanOrEqual(10);
    expect(k.packets.every((d) => d.checksumOk)).toBe(true);
    // Stop and play again: the stored geolocation is in the stream from the start.
    r = await svc.api('PUT', '/svc/pipeline/klv-rec/play');
    expect(r.status, r.text).toBe(200);
    await sleep(1500);
    r = await svc.api('PUT', '/svc/pipeline/klv-rec/stop');
    const again = await klvOf(path);
    expect(again.packets.length).toBeGreaterThanOrEqual(5);
    for (const d of again.packets) expectPosition(d, GEO);
    const ffv = await run('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v', '-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', path]);
    expect(Number(ffv.stdout.trim().split('\n')[0])).toBeGreaterThan(10);
    await svc.api('DELETE', '/svc/pipeline/klv-rec');
  }, 60_000);
});
