// A passed-through source keeps its KLV in every output that can carry it (docs/klv.md): an RTSP source with a
// SMPTE336M track (another encoderd pipeline with a geolocation) relayed unencoded into a local RTSP output (as
// rtspsrc ! rtpklvdepay and ffprobe see it) and into a .ts recording (tsdemux, ffprobe); the video decodes in ffmpeg
// without an error line. A geolocation PATCHed onto the relay replaces the source's KLV; null gives it back. A UDP
// MPEG-TS source's KLV stream (parsebin's KLV pad) passed through into RTSP becomes its KLV track.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, run, startService, waitFor, type RunningService } from '../helpers/service';
import { openSse } from '../helpers/sse';
import { expectPosition, expectCleanDecode, rtspKlv, tsKlv } from './receivers';

const CAM = { latitude: 40.689247, longitude: -74.044502, altitude: 93, heading: 12.5 };
const OWN = { latitude: 45.5, longitude: 7.25, altitude: 1000, heading: 300 };
const ENCODING = { codec: 'h264', bitrate: 300, width: 320, height: 240, fps: 15, quality: 1 };

let svc: RunningService;
let dir: string;
let camUrl: string;
beforeAll(async () => {
  svc = await startService();
  dir = mkdtempSync(join(tmpdir(), 'encoderd-klv-pass-'));
  camUrl = `rtsp://127.0.0.1:${await freePort()}/cam`;
  const r = await svc.api('POST', '/svc/pipeline', { id: 'cam', mode: 'simple', source: { uri: 'test://ball' }, encoding: ENCODING, output: { uri: camUrl } });
  expect(r.status, r.text).toBe(201);
  expect((await svc.api('PATCH', '/svc/pipeline/cam', { geolocation: CAM })).status).toBe(200);
});
afterAll(async () => {
  await svc?.stop();
});

async function remove(id: string) {
  await svc.api('PUT', `/svc/pipeline/${id}/stop`);
  await svc.api('DELETE', `/svc/pipeline/${id}`);
}

describe('passthrough keeps the source\'s KLV', () => {
  it('RTSP source into a local RTSP output: the relay\'s KLV track carries the source\'s packets; a geolocation replaces them', async () => {
    const url = `rtsp://127.0.0.1:${await freePort()}/relay`;
    const r = await svc.api('POST', '/svc/pipeline', { id: 'relay', mode: 'simple', source: { uri: camUrl }, output: { uri: url } });
    expect(r.status, r.text).toBe(201);
    try {
      expect((await svc.api('GET', '/svc/pipeline/relay/sdp')).text).toMatch(/a=rtpmap:97 SMPTE336M\/90000/);
      const probe = await run('ffprobe', ['-v', 'error', '-rtsp_transport', 'tcp', '-show_entries', 'stream=codec_type', '-of', 'csv=p=0', url], { timeoutMs: 20000 });
      expect(probe.stdout.split('\n').filter(Boolean).sort()).toEqual(['data', 'video']);

      const source = await rtspKlv(url, dir, 12);
      // The client joins a running relay whose source's KLV has long arrived: every packet is the source's.
      expect(source.packets.length, source.stderr).toBeGreaterThanOrEqual(10);
      for (const d of source.packets) expectPosition(d, CAM);
      await expectCleanDecode(url, 30, ['-rtsp_transport', 'tcp']);

      expect((await svc.api('PATCH', '/svc/pipeline/relay', { geolocation: OWN })).status).toBe(200);
      const own = await rtspKlv(url, dir, 12);
      expect(own.packets.length, own.stderr).toBeGreaterThanOrEqual(10);
      for (const d of own.packets) expectPosition(d, OWN);

      expect((await svc.api('PATCH', '/svc/pipeline/relay', { geolocation: null })).status).toBe(200);
      const back = await rtspKlv(url, dir, 12);
      expect(back.packets.length, back.stderr).toBeGreaterThanOrEqual(10);
      for (const d of back.packets) expectPosition(d, CAM);
    } finally {
      await remove('relay');
    }
  }, 90_000);

  it('UDP MPEG-TS source into a local RTSP output: the KLV stream becomes the RTSP KLV track, and klv events', async () => {
    const port = await freePort();
    const url = `rtsp://127.0.0.1:${await freePort()}/fromts`;
    // The sender first: a passed-through source is probed when the relay starts, and must be sending then.
    let r = await svc.api('POST', '/svc/pipeline', { id: 'tssender', mode: 'simple', source: { uri: 'test://ball' }, encoding: ENCODING, output: { uri: `udp://127.0.0.1:${port}` } });
    expect(r.status, r.text).toBe(201);
    try {
      expect((await svc.api('PATCH', '/svc/pipeline/tssender', { geolocation: OWN })).status).toBe(200);
      r = await svc.api('POST', '/svc/pipeline', { id: 'tsrelay', mode: 'simple', source: { uri: `udp://127.0.0.1:${port}` }, output: { uri: url } });
      expect(r.status, r.text).toBe(201);
      await waitFor(async () => (await svc.api('GET', '/svc/pipeline/tsrelay')).body.klv?.available === true, 15000);
      const sse = await openSse(svc.port, '/svc/pipeline/tsrelay/status/events');
      try {
        expect((await svc.api('PUT', '/svc/pipeline/tsrelay/klv/start')).status).toBe(200);
        const ev = await sse.next((e) => e.event === 'klv', 5000);
        expectPosition({ ...ev.data, checksumOk: ev.data.checksum_ok }, OWN);
      } finally {
        sse.close();
      }
      const got = await rtspKlv(url, dir, 15);
      const first = got.packets.findIndex((d) => d.latitude !== undefined);
      expect(first, got.stderr).toBeGreaterThanOrEqual(0);
      expect(got.packets.length - first).toBeGreaterThanOrEqual(10);
      for (const d of got.packets.slice(first)) expectPosition(d, OWN);
      await expectCleanDecode(url, 30, ['-rtsp_transport', 'tcp']);
    } finally {
      await remove('tssender');
      await remove('tsrelay');
    }
  }, 90_000);

  it('RTSP source into a .ts recording: the file\'s KLV stream is the source\'s', async () => {
    const file = join(dir, 'relay.ts');
    const r = await svc.api('POST', '/svc/pipeline', { id: 'rec', mode: 'simple', source: { uri: camUrl }, output: { uri: file } });
    expect(r.status, r.text).toBe(201);
    try {
      await waitFor(async () => (await svc.api('GET', '/svc/pipeline/rec/stats')).body.stats?.output?.frames >= 45, 15000);
    } finally {
      await remove('rec');
    }
    const k = await tsKlv(file, dir);
    expect(k.streams).toMatch(/klv,data,KLVA/);
    expect(k.pts.every((p) => p !== null)).toBe(true);
    // Until the source's first KLV packet arrives the stream holds the pacer's own (time stamp and version only).
    const first = k.packets.findIndex((d) => d.latitude !== undefined);
    expect(first).toBeGreaterThanOrEqual(0);
    expect(first).toBeLessThanOrEqual(5);
    expect(k.packets.length - first).toBeGreaterThanOrEqual(15);
    for (const d of k.packets.slice(first)) expectPosition(d, CAM);
    await expectCleanDecode(file, 30);
  }, 90_000);
});
