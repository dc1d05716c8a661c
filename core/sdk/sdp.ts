/**
 * Session descriptions (RFC 4566) for RTP outputs. Pure: the same output gives the same text, so it has a golden
 * test. Outputs build one from what they know (destination, transport, each stream's RTP mapping); the core only
 * serves it at GET /svc/pipeline/{id}/sdp.
 *
 * Connection address (c=): the destination for UDP (a multicast group carries its TTL, `/ttl`, as RFC 4566 §5.7
 * requires for IPv4); for a listening TCP output or a local RTSP server, the address it listens on (0.0.0.0 means
 * "the address you reached me on", as RTSP servers commonly answer).
 */
import { isMulticast } from './uri';

export interface SdpMedia {
  media: 'video' | 'audio' | 'application';
  /** 0 for RTSP (the port is negotiated by SETUP). */
  port: number;
  /** RTP/AVP for UDP and RTSP; TCP/RTP/AVP for RFC 4571 framing. */
  proto: 'RTP/AVP' | 'TCP/RTP/AVP';
  pt: number;
  encodingName: string;
  clockRate: number;
  channels?: number;
  fmtp?: string;
  /** Extra attribute lines without the `a=`, e.g. `control:stream=0`, `setup:passive`. */
  attributes?: string[];
}

export interface SdpSession {
  /** Names the session: the pipeline id. */
  name: string;
  /** The connection address (c=). */
  address: string;
  /** Multicast TTL; used only when address is an IPv4 multicast group. */
  ttl?: number;
  /** Session-level attributes without `a=`, e.g. `group:BUNDLE v a`. */
  attributes?: string[];
  media: SdpMedia[];
}

/** A stable numeric session id from the name (FNV-1a), so a pipeline's SDP never changes between requests. */
function sessionId(name: string): number {
  let h = 0x811c9dc5;
  for (const ch of Buffer.from(name, 'utf8')) {
    h ^= ch;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function addrType(address: string): 'IP4' | 'IP6' {
  return address.includes(':') ? 'IP6' : 'IP4';
}

/** SDP text with CRLF line ends (RFC 4566 §5). */
export function buildSdp(s: SdpSession): string {
  const type = addrType(s.address);
  const ttl = type === 'IP4' && isMulticast(s.address) ? `/${s.ttl ?? 1}` : '';
  // o= names the originating host; the appliance's own addresses are not known to a pure function, and the
  // loopback address is a valid, stable stand-in that receivers ignore.
  const origin = type === 'IP4' ? '127.0.0.1' : '::1';
  const lines = [
    'v=0',
    `o=- ${sessionId(s.name)} 1 IN ${type} ${origin}`,
    `s=${s.name.replace(/[\r\n]/g, ' ')}`,
    `c=IN ${type} ${s.address}${ttl}`,
    't=0 0',
    ...(s.attributes ?? []).map((a) => `a=${a}`),
  ];
  for (const m of s.media) {
    lines.push(`m=${m.media} ${m.port} ${m.proto} ${m.pt}`);
    lines.push(`a=rtpmap:${m.pt} ${m.encodingName}/${m.clockRate}${m.channels ? `/${m.channels}` : ''}`);
    if (m.fmtp) lines.push(`a=fmtp:${m.pt} ${m.fmtp}`);
    for (const a of m.attributes ?? []) lines.push(`a=${a}`);
  }
  return `${lines.join('\r\n')}\r\n`;
}
