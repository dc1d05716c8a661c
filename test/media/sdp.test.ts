// The SDP writer (core/sdk/sdp.ts) is pure: golden texts for each kind of RTP output, and the outputs' own SDPs.
// Session ids are FNV-1a of the name (checked independently: python3, 'cam1' -> 1794036519, 'x' -> 4245442695).
import { describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../plugins';
import { composeSimple } from '../../core/compose';
import { PluginRegistry } from '../../core/plugins/registry';
import { buildSdp } from '../../core/sdk';

const crlf = (lines: string[]) => `${lines.join('\r\n')}\r\n`;

describe('buildSdp', () => {
  it('UDP unicast AV1: the destination as connection address, the port on the m= line', () => {
    expect(buildSdp({ name: 'cam1', address: '127.0.0.1', media: [{ media: 'video', port: 5004, proto: 'RTP/AVP', pt: 96, encodingName: 'AV1', clockRate: 90000 }] }))
      .toBe(crlf(['v=0', 'o=- 1794036519 1 IN IP4 127.0.0.1', 's=cam1', 'c=IN IP4 127.0.0.1', 't=0 0', 'm=video 5004 RTP/AVP 96', 'a=rtpmap:96 AV1/90000']));
  });

  it('multicast: the group with its TTL; a second stream (audio) joins the same port with the next payload type', () => {
    expect(buildSdp({
      name: 'cam1', address: '239.1.2.3', ttl: 1,
      media: [
        { media: 'video', port: 5004, proto: 'RTP/AVP', pt: 96, encodingName: 'AV1', clockRate: 90000 },
        { media: 'audio', port: 5004, proto: 'RTP/AVP', pt: 97, encodingName: 'CODEC2', clockRate: 8000, fmtp: 'mode=2400' },
      ],
    })).toBe(crlf([
      'v=0', 'o=- 1794036519 1 IN IP4 127.0.0.1', 's=cam1', 'c=IN IP4 239.1.2.3/1', 't=0 0',
      'm=video 5004 RTP/AVP 96', 'a=rtpmap:96 AV1/90000',
      'm=audio 5004 RTP/AVP 97', 'a=rtpmap:97 CODEC2/8000', 'a=fmtp:97 mode=2400',
    ]));
  });

  it('IPv6 and TCP (RFC 4571 framing, RFC 4145 setup); no TTL on IPv6 multicast', () => {
    expect(buildSdp({ name: 'x', address: 'ff02::1', media: [{ media: 'video', port: 6000, proto: 'TCP/RTP/AVP', pt: 96, encodingName: 'AV1', clockRate: 90000, attributes: ['setup:passive', 'connection:new'] }] }))
      .toBe(crlf(['v=0', 'o=- 4245442695 1 IN IP6 ::1', 's=x', 'c=IN IP6 ff02::1', 't=0 0', 'm=video 6000 TCP/RTP/AVP 96', 'a=rtpmap:96 AV1/90000', 'a=setup:passive', 'a=connection:new']));
  });
});

describe('outputs publish their SDP through composition', () => {
  const registry = new PluginRegistry();
  for (const p of builtinPlugins) registry.register(p);
  const def = (codec: string, uri: string, onDemand = false) => ({
    id: 'cam1', mode: 'simple' as const, on_demand: onDemand, source: { uri: 'test://ball' },
    encoding: { codec, bitrate: 500, width: 320, height: 240, fps: 15, quality: 5 }, output: { uri },
  });
  const sdp = (codec: string, uri: string, onDemand = false) => composeSimple(def(codec, uri, onDemand), registry, { rtspLatencyMs: 200 }).sdp;

  it('local RTSP: what DESCRIBE offers, with per-stream control URLs', () => {
    expect(sdp('h265', 'rtsp://0.0.0.0:8554/live')).toBe(crlf([
      'v=0', 'o=- 1794036519 1 IN IP4 127.0.0.1', 's=cam1', 'c=IN IP4 0.0.0.0', 't=0 0', 'a=range:npt=now-', 'a=control:*',
      'm=video 0 RTP/AVP 96', 'a=rtpmap:96 H265/90000', 'a=control:stream=0',
      // The KLV track the engine host feeds (docs/klv.md); an on-demand mount has none.
      'm=application 0 RTP/AVP 97', 'a=rtpmap:97 SMPTE336M/90000', 'a=control:stream=1',
    ]));
    expect(sdp('av1', 'rtsp://0.0.0.0:8554/live', true)).toContain('a=rtpmap:96 AV1/90000\r\n');
  });

  it('AV1 over UDP and TCP has one; MPEG-TS outputs and files have none', () => {
    expect(sdp('av1', 'udp://lo@239.1.2.3:5004')).toContain('c=IN IP4 239.1.2.3/1\r\nt=0 0\r\nm=video 5004 RTP/AVP 96\r\n');
    expect(sdp('av1', 'tcp://127.0.0.1:6000')).toContain('a=setup:active\r\n');
    expect(sdp('h264', 'udp://127.0.0.1:5004')).toBeUndefined();
    expect(sdp('h265', 'tcp://0.0.0.0:6000')).toBeUndefined();
    expect(sdp('av1', '/tmp/x.mkv')).toBeUndefined();
  });
});
