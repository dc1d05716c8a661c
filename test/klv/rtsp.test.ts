// KLV over the local RTSP server (docs/klv.md): the pipeline's geolocation as an RFC 6597 track (rtpklvpay,
// m=application SMPTE336M) beside H.264 and H.265, as outside clients see it: the SDP, ffprobe's stream list,
// gst-launch-1.0 rtspsrc ! rtpklvdepay for the ST 0601 packets, and ffmpeg decoding the video without an error line.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, run, startService, waitFor, type RunningService } from '../helpers/service';
import { expectPosition, expectCleanDecode, rtspKlv } from './receivers';

const GEO = { latitude: -33.856784, longitude: 151.215297, altitude: 42.5, heading: 271.25 };

let svc: RunningService;
let dir: string;
beforeAll(async () => {
  svc = await startService();
  dir = mkdtempSync(join(tmpdir(), 'encoderd-klv-rtsp-'));
});
afterAll(async () => {
  await svc?.stop();
});

describe('KLV on the local RTSP output', () => {
  it.each(['h264', 'h265'])('%s: a SMPTE336M track in the SDP whose ST 0601 packets carry the geolocation; the video decodes cleanly', async (codec) => {
    const port = await freePort();
    const url = `rtsp://127.0.0.1:${port}/klv`;
    const id = `klv-rtsp-${codec}`;
    let r = await svc.api('POST', '/svc/pipeline', {
      id, mode: 'simple', source: { uri: 'test://ball' },
      encoding: { codec, bitrate: 300, width: 320, height: 240, fps: 15, quality: 1 }, output: { uri: url },
    });
    expect(r.status, r.text).toBe(201);
    try {
      r = await svc.api('PATCH', `/svc/pipeline/${id}`, { geolocation: GEO });
      expect(r.status, r.text).toBe(200);

      const sdp = (await svc.api('GET', `/svc/pipeline/${id}/sdp`)).text;
      expect(sdp).toMatch(/m=application 0 RTP\/AVP 97\r\n/);
      expect(sdp).toMatch(/a=rtpmap:97 SMPTE336M\/90000\r\n/);

      // What the server itself offers at DESCRIBE, as ffprobe reads it.
      const probe = await run('ffprobe', ['-v', 'error', '-rtsp_transport', 'tcp', '-show_entries', 'stream=codec_type,codec_name', '-of', 'csv=p=0', url], { timeoutMs: 20000 });
      expect(probe.code, probe.stderr).toBe(0);
      expect(probe.stdout).toMatch(new RegExp(`${codec === 'h264' ? 'h264' : 'hevc'},video`));
      expect(probe.stdout).toMatch(/data/);

      const { packets, stderr } = await rtspKlv(url, dir, 12);
      expect(packets.length, stderr).toBeGreaterThanOrEqual(10);
      for (const d of packets) {
        expectPosition(d, GEO);
        expect(d.version).toBe(19);
      }

      await expectCleanDecode(url, 30, ['-rtsp_transport', 'tcp']);
    } finally {
      await svc.api('PUT', `/svc/pipeline/${id}/stop`);
      await svc.api('DELETE', `/svc/pipeline/${id}`);
    }
  }, 90_000);
});
