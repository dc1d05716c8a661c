/** The console's pure parts (web/js), against golden values: SSE parsing, backoff, error placement, bodies, graphs. */
import { describe, expect, it } from 'vitest';
import { resolveVendorPath } from '../../core/web/static-files';
import { fieldOf, getPath, setPath } from '../../web/js/form-errors.js';
import { points } from '../../web/js/graph.js';
import { companionBody, localRtsp } from '../../web/js/preview.js';
import { backoffMs, sseParser } from '../../web/js/sse.js';
import { pushSample } from '../../web/js/state.js';
import { parseHeaders } from '../../web/js/webhooks.js';

describe('sseParser', () => {
  it('yields named events across chunk boundaries and skips comments', () => {
    const got: Array<[string, string]> = [];
    const feed = sseParser((name: string, data: string) => got.push([name, data]));
    feed(': connected\n\nevent: pipeline_status\ndata: {"id":');
    feed('"a"}\n');
    feed('\n: keepalive\n\nevent: camera_added\r\ndata: 1\r\ndata: 2\r\n\r\n');
    feed('data: plain\n\n');
    expect(got).toEqual([['pipeline_status', '{"id":"a"}'], ['camera_added', '1\n2'], ['message', 'plain']]);
  });
  it('backs off 1, 2, 4 … 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 20].map(backoffMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });
});

describe('fieldOf', () => {
  const names = ['id', 'source.uri', 'encoding.bitrate', 'encoding.codec', 'audio.volume', 'audio.device', 'inputs[1].source.uri', 'output.uri', 'raw_pipeline'];
  it('puts each message beside the control it names', () => {
    expect(fieldOf('encoding.bitrate must be between 5 and 5000', names)).toBe('encoding.bitrate');
    expect(fieldOf('audio.volume must be between 0.0 and 2.0', names)).toBe('audio.volume');
    expect(fieldOf('inputs[1].source.uri test pattern must be one of ball, smpte', names)).toBe('inputs[1].source.uri');
    expect(fieldOf('output.uri: unknown parameter "x"', names)).toBe('output.uri');
    expect(fieldOf('raw_pipeline macro <svc:h264 bitrate=0 />: bitrate must be between 5 and 5000', names)).toBe('raw_pipeline');
    expect(fieldOf('encoding is required for this source', names)).toBe('encoding.bitrate');
    expect(fieldOf('source.uri.host is odd', names)).toBe('source.uri');
  });
  it('leaves the rest to the form', () => {
    expect(fieldOf('pipeline "x" already exists', names)).toBeNull();
    expect(fieldOf('audio over these outputs requires the AV1 video codec', names)).toBe('audio.volume');
  });
  it('builds and reads bodies by path', () => {
    const body = {};
    setPath(body, 'inputs[0].crop.top', 4);
    setPath(body, 'inputs[1].source.uri', 'test://ball');
    setPath(body, 'encoding.fps', 10);
    expect(body).toEqual({ inputs: [{ crop: { top: 4 } }, { source: { uri: 'test://ball' } }], encoding: { fps: 10 } });
    expect(getPath(body, 'inputs[1].source.uri')).toBe('test://ball');
    expect(getPath(body, 'audio.volume')).toBeUndefined();
  });
});

describe('graphs and history', () => {
  it('keeps the window and draws the newest at the right edge', () => {
    let h: Array<{ t: number }> = [];
    for (let t = 0; t <= 10_000; t += 1000) h = pushSample(h, { t }, 5);
    expect(h.map((s) => s.t)).toEqual([5000, 6000, 7000, 8000, 9000, 10000]);
    expect(points([0, 50, 100], 3, 100)).toBe('0.0,27.0 60.0,14.0 120.0,1.0');
    expect(points([], 3, 1)).toBe('');
  });
});

describe('webhook headers and preview', () => {
  it('parses "Name: value" lines', () => {
    expect(parseHeaders('Authorization: Bearer a:b\n\n X-Site : north ')).toEqual({ Authorization: 'Bearer a:b', 'X-Site': 'north' });
    expect(() => parseHeaders('nocolon')).toThrow(/headers: "nocolon"/);
  });
  it('relays only a local RTSP server output', () => {
    expect(localRtsp('rtsp://0.0.0.0:8554/live')).toEqual({ port: 8554, path: '/live' });
    expect(localRtsp('rtsp://192.0.2.1:8554/live')).toBeNull();
    expect(localRtsp('udp://127.0.0.1:5000')).toBeNull();
    expect(companionBody({ id: 'cam', output: { uri: 'rtsp://0.0.0.0:8554/cam' }, encoding: { codec: 'h264', width: 320 } }))
      .toEqual({ id: 'cam-preview', mode: 'simple', source: { uri: 'rtsp://127.0.0.1:8554/cam' }, output: { uri: 'hls://?segment=1&playlist_length=3' } });
    expect(companionBody({ id: 'cam', output: { uri: 'rtsp://0.0.0.0:8554/cam' }, encoding: { codec: 'h265', bitrate: 500, width: 320, height: 240, fps: 10 } }).encoding)
      .toEqual({ codec: 'h264', bitrate: 500, width: 320, height: 240, fps: 10 });
  });
  it('serves named vendor files only', () => {
    expect(resolveVendorPath('/p', '/vendor/hls.min.js?v=1')).toBe('/p/node_modules/hls.js/dist/hls.min.js');
    for (const p of ['/vendor/', '/vendor/hls.js', '/vendor/../package.json', '/vendor/constructor', '/vendor/__proto__']) expect(resolveVendorPath('/p', p), p).toBeNull();
  });
});
