/**
 * Advanced mode on the real service: macros expanded at start (text kept as written), bad macros and unparseable
 * descriptions refused with 400, conflicts read from the parsed elements, encoding patch refused with 409.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { h264Body, run, startService, waitFor, type RunningService } from '../helpers/service';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

const VIDEO = 'videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1';
const advanced = (id: string, raw: string) => ({ id, mode: 'advanced', raw_pipeline: raw });
const discover = async (file: string) => (await run('gst-discoverer-1.0', [file], { timeoutMs: 20000 })).stdout;

describe('macros', () => {
  it('expands <svc:h264 bitrate=... /> at start, stores and returns the text as written, records H.264', async () => {
    const file = `${svc.dataDir}/adv-h264.mkv`;
    const raw = `${VIDEO} ! <svc:h264   bitrate=800 /> ! matroskamux ! filesink location=${file}`;
    const r = await svc.api('POST', '/svc/pipeline', advanced('adv-h264', raw));
    expect(r.status, r.text).toBe(201);
    expect(r.body.state).toBe('playing');
    expect(r.body.raw_pipeline).toBe(raw);
    expect((await svc.api('GET', '/svc/pipeline/adv-h264')).body.raw_pipeline).toBe(raw);
    await new Promise((res) => setTimeout(res, 1500));
    expect((await svc.api('PUT', '/svc/pipeline/adv-h264/stop')).body.state).toBe('ready');
    const info = await discover(file);
    expect(info).toMatch(/video #\d+: H\.264/);
    expect(info).toContain('Width: 320');
    expect((await svc.api('DELETE', '/svc/pipeline/adv-h264')).status).toBe(204);
  });

  it('takes several macros in one pipeline (video and Codec2 audio)', async () => {
    const file = `${svc.dataDir}/adv-multi.ts`;
    const raw = `${VIDEO} ! <svc:h264 /> ! mpegtsmux name=m ! filesink location=${file}  `
      + `audiotestsrc is-live=true ! <svc:codec2 mode=1200 /> ! fakesink  ${VIDEO} ! <svc:h264 bitrate=5 /> ! fakesink`;
    const r = await svc.api('POST', '/svc/pipeline', advanced('adv-multi', raw));
    expect(r.status, r.text).toBe(201);
    expect(r.body.state).toBe('playing');
    await new Promise((res) => setTimeout(res, 1000));
    await svc.api('PUT', '/svc/pipeline/adv-multi/stop');
    expect(await discover(file)).toMatch(/H\.264/);
    await svc.api('DELETE', '/svc/pipeline/adv-multi');
  });

  it.each([
    ['<svc:h264 bitrate=0 />', 'raw_pipeline macro <svc:h264 bitrate=0 />: bitrate must be between 5 and 5000'],
    ['<svc:h264 bitrate=5001 />', 'raw_pipeline macro <svc:h264 bitrate=5001 />: bitrate must be between 5 and 5000'],
    ['<svc:h264 bitrate=fast />', 'raw_pipeline macro <svc:h264 bitrate=fast />: bitrate must be an integer between 5 and 5000'],
    ['<svc:h264 preset=1 />', 'raw_pipeline macro <svc:h264 preset=1 />: unknown attribute preset; svc:h264 takes bitrate'],
    ['<svc:mpeg2 />', 'raw_pipeline macro <svc:mpeg2 />: unknown macro svc:mpeg2'],
    ['<svc:h264>', 'raw_pipeline macro <svc:h264>: must be self-closing'],
  ])('%s answers 400 VALIDATION_ERROR naming the macro', async (macro, message) => {
    const r = await svc.api('POST', '/svc/pipeline', advanced('adv-bad', `${VIDEO} ! ${macro} ! fakesink`));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('VALIDATION_ERROR');
    expect(r.body.details.errors.join('\n')).toContain(message);
    expect((await svc.api('GET', '/svc/pipeline/adv-bad')).status).toBe(404);
  });

  it('refuses <svc:codec2 mode=999 /> with the allowed modes', async () => {
    const r = await svc.api('POST', '/svc/pipeline', advanced('adv-c2', 'audiotestsrc ! <svc:codec2 mode=999 /> ! fakesink'));
    expect(r.status).toBe(400);
    expect(r.body.details.errors).toEqual(['raw_pipeline macro <svc:codec2 mode=999 />: mode must be one of 3200, 2400, 1600, 1400, 1300, 1200']);
  });

  it('refuses fields of other modes and on_demand', async () => {
    const r = await svc.api('POST', '/svc/pipeline', { ...advanced('adv-f', `${VIDEO} ! fakesink`), on_demand: true, output: { uri: '/tmp/x.ts' } });
    expect(r.status).toBe(400);
    expect(r.body.details.errors).toEqual(expect.arrayContaining(['output is not allowed in advanced mode']));
  });
});

describe('GStreamer parses the description', () => {
  it.each([
    [`${VIDEO} ! nosuchelement ! fakesink`, 'no element "nosuchelement"'],
    [`${VIDEO} ! `, 'syntax error'],
    [`${VIDEO} ! <svc:h264 /> ! x264enc bitrate=abc ! fakesink`, 'could not set property "bitrate"'],
  ])('%j answers 400 VALIDATION_ERROR with its message', async (raw, message) => {
    const r = await svc.api('POST', '/svc/pipeline', advanced('adv-parse', raw));
    expect(r.status, r.text).toBe(400);
    expect(r.body.code).toBe('VALIDATION_ERROR');
    expect(r.body.message).toContain(message);
    expect((await svc.api('GET', '/svc/pipeline/adv-parse')).status).toBe(404);
  });

  it('PUT with an unparseable description answers 400 and keeps the old one', async () => {
    const raw = `${VIDEO} ! fakesink`;
    expect((await svc.api('POST', '/svc/pipeline', advanced('adv-put', raw))).status).toBe(201);
    await svc.api('PUT', '/svc/pipeline/adv-put/stop');
    const r = await svc.api('PUT', '/svc/pipeline/adv-put', advanced('adv-put', `${VIDEO} ! nosuch ! fakesink`));
    expect(r.status).toBe(400);
    expect((await svc.api('GET', '/svc/pipeline/adv-put')).body.raw_pipeline).toBe(raw);
    await svc.api('DELETE', '/svc/pipeline/adv-put');
  });
});

describe('conflicts come from the parsed elements', () => {
  it('udpsink host/port against another advanced pipeline and a simple one; defaults count too', async () => {
    const a = await svc.api('POST', '/svc/pipeline', advanced('adv-udp-a', `${VIDEO} ! <svc:h264 /> ! mpegtsmux ! udpsink host=127.0.0.1 port=46011`));
    expect(a.status, a.text).toBe(201);
    // Same destination written differently: the property as GStreamer holds it, not the text, decides.
    const b = await svc.api('POST', '/svc/pipeline', advanced('adv-udp-b', `${VIDEO} ! <svc:h264 /> ! mpegtsmux ! udpsink name=out port=46011 host="127.0.0.1"`));
    expect(b.status).toBe(409);
    expect(b.body.code).toBe('PIPELINE_CONFLICT');
    expect(b.body.message).toBe('UDP destination 127.0.0.1:46011 is in use by pipeline "adv-udp-a"');
    const s = await svc.api('POST', '/svc/pipeline', h264Body('simple-udp', 'udp://127.0.0.1:46011'));
    expect(s.status).toBe(409);
    expect(s.body.message).toContain('adv-udp-a');
    // A bare udpsink sends to localhost:5004 by default; two of them conflict.
    expect((await svc.api('POST', '/svc/pipeline', advanced('adv-def-a', `${VIDEO} ! <svc:h264 /> ! mpegtsmux ! udpsink`))).status).toBe(201);
    const d = await svc.api('POST', '/svc/pipeline', advanced('adv-def-b', `${VIDEO} ! <svc:h264 /> ! mpegtsmux ! udpsink`));
    expect(d.status).toBe(409);
    expect(d.body.message).toContain('localhost:5004');
    for (const id of ['adv-udp-a', 'adv-def-a']) {
      await svc.api('PUT', `/svc/pipeline/${id}/stop`);
      await svc.api('DELETE', `/svc/pipeline/${id}`);
    }
  });

  it('multicast groups conflict unless multicast-iface differs', async () => {
    const raw = (iface: string) => `${VIDEO} ! <svc:h264 /> ! mpegtsmux ! udpsink host=239.7.7.7 port=46012 auto-multicast=true ttl-mc=1 ${iface}`;
    expect((await svc.api('POST', '/svc/pipeline', advanced('mc-a', raw('multicast-iface=lo')))).status).toBe(201);
    const same = await svc.api('POST', '/svc/pipeline', advanced('mc-b', raw('multicast-iface=lo')));
    expect(same.status).toBe(409);
    expect(same.body.message).toBe('UDP multicast group 239.7.7.7:46012 on lo is in use by pipeline "mc-a"');
    const other = await svc.api('POST', '/svc/pipeline', advanced('mc-c', raw('')));
    expect(other.status, other.text).toBe(201);
    for (const id of ['mc-a', 'mc-c']) {
      await svc.api('PUT', `/svc/pipeline/${id}/stop`);
      await svc.api('DELETE', `/svc/pipeline/${id}`);
    }
  });

  it('filesink location, tcpserversink port and v4l2src device are claimed; play re-checks', async () => {
    const file = `${svc.dataDir}/adv-claim.mkv`;
    expect((await svc.api('POST', '/svc/pipeline', advanced('f-a', `${VIDEO} ! <svc:h264 /> ! matroskamux ! filesink location=${file}`))).status).toBe(201);
    const f = await svc.api('POST', '/svc/pipeline', h264Body('f-b', file));
    expect(f.status).toBe(409);
    expect(f.body.message).toBe(`output file ${file} is in use by pipeline "f-a"`);
    expect((await svc.api('POST', '/svc/pipeline', advanced('t-a', `${VIDEO} ! <svc:h264 /> ! mpegtsmux ! tcpserversink host=127.0.0.1 port=46013`))).status).toBe(201);
    const t = await svc.api('POST', '/svc/pipeline', advanced('t-b', `${VIDEO} ! <svc:h264 /> ! mpegtsmux ! tcpserversink host=127.0.0.1 port=46013`));
    expect(t.status).toBe(409);
    expect(t.body.message).toBe('TCP port 46013 is in use by pipeline "t-a"');
    // No V4L2 camera exists on a test machine: two v4l2src of one device in one pipeline conflict at parse time already.
    const cam = await svc.api('POST', '/svc/pipeline', advanced('cam', 'v4l2src device=/dev/video9 ! fakesink  v4l2src device=/dev/video9 ! fakesink'));
    expect(cam.status).toBe(409);
    expect(cam.body.message).toBe('camera /dev/video9 is used by more than one input of pipeline "cam"');
    // Stopped, f-a releases the file; f-b takes it; f-a cannot play again.
    await svc.api('PUT', '/svc/pipeline/f-a/stop');
    expect((await svc.api('POST', '/svc/pipeline', h264Body('f-b', file))).status).toBe(201);
    const replay = await svc.api('PUT', '/svc/pipeline/f-a/play');
    expect(replay.status).toBe(409);
    expect(replay.body.message).toBe(`output file ${file} is in use by pipeline "f-b"`);
    for (const id of ['f-a', 'f-b', 't-a']) {
      await svc.api('PUT', `/svc/pipeline/${id}/stop`);
      await svc.api('DELETE', `/svc/pipeline/${id}`);
    }
  });
});

describe('patch', () => {
  it('an encoding patch on an advanced pipeline answers 409 PIPELINE_CONFLICT; geolocation still applies', async () => {
    expect((await svc.api('POST', '/svc/pipeline', advanced('adv-patch', `${VIDEO} ! <svc:h264 /> ! fakesink`))).status).toBe(201);
    const r = await svc.api('PATCH', '/svc/pipeline/adv-patch', { encoding: { bitrate: 900 } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('PIPELINE_CONFLICT');
    const g = await svc.api('PATCH', '/svc/pipeline/adv-patch', { geolocation: { latitude: 1, longitude: 2 } });
    expect(g.status).toBe(200);
    expect(g.body.state).toBe('playing');
    await svc.api('PUT', '/svc/pipeline/adv-patch/stop');
    await waitFor(async () => (await svc.api('DELETE', '/svc/pipeline/adv-patch')).status === 204);
  });
});
