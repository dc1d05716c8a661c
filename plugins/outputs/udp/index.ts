/**
 * UDP unicast and multicast. Codecs that fit MPEG-TS (H.264, H.265) go as TS in 7×188-byte datagrams (the
 * STANAG 4609 habit); a codec with no TS mapping that players read (AV1) goes as an RTP bundle on the one port:
 * each stream its own payload type (video 96, then audio 97, then KLV as RFC 6597, …) merged by an rtpfunnel,
 * described by the SDP at GET /svc/pipeline/{id}/sdp. Multicast is sent on the interface named by network_interface or inline as
 * udp://iface@group:port, with TTL 1 (the appliance's segment).
 */
import { buildSdp, definePlugin, element, isMulticast, parseHostPort, rtpBundle, streamCarriesKlv, streamOutputErrors, type Claim, type OutputPlugin, type OutputSpec } from '../../../core/sdk';
import { MPEG_TS } from '../../shared/mpegts';

const MULTICAST_TTL = 1;

function udpClaim(host: string, port: number, iface: string | undefined): Claim {
  return isMulticast(host)
    ? { resource: 'udp-multicast', key: `${host}:${port}@${iface ?? ''}`, label: `UDP multicast group ${host}:${port}${iface ? ` on ${iface}` : ''}` }
    : { resource: 'udp-destination', key: `${host.toLowerCase()}:${port}`, label: `UDP destination ${host}:${port}` };
}

/** A port property's text as a port (0 and anything else: none). */
const portOf = (text: string | undefined): number | null => (text !== undefined && /^\d+$/.test(text) && Number(text) > 0 ? Number(text) : null);

/** host:port pairs of multiudpsink's `clients` ("h1:p1,h2:p2", IPv6 as [h]:p). */
function clientList(text: string): Array<{ host: string; port: number }> {
  return text.split(',').map((s) => s.trim()).filter(Boolean).flatMap((c) => {
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(c);
    return m && Number(m[2]) > 0 ? [{ host: m[1], port: Number(m[2]) }] : [];
  });
}

function target(output: OutputSpec) {
  const hp = parseHostPort(output.uri, 'udp');
  if (!hp) return null;
  const iface = output.network_interface ?? hp.iface;
  return { ...hp, iface, multicast: isMulticast(hp.host) };
}

export default definePlugin<OutputPlugin>({
  kind: 'output',
  name: 'udp',
  version: '1.1.0',
  description: 'UDP unicast and multicast (MPEG-TS; RTP bundle for AV1)',
  examples: { valid: ['udp://127.0.0.1:5000', 'udp://lo@239.1.1.1:5000'], invalid: ['udp://127.0.0.1', 'udp://bad iface@239.1.1.1:5000'] },
  supportsOnDemand: false,
  carriesKlv: streamCarriesKlv,
  accepts: (uri) => uri.startsWith('udp://'),
  validate(output, pipeline, codec) {
    const t = target(output);
    if (!t) return ['output.uri must be udp://host:port or udp://iface@group:port'];
    const errors: string[] = [];
    errors.push(...streamOutputErrors('UDP', pipeline, codec, MPEG_TS));
    if (t.iface && !/^[a-zA-Z0-9_.:-]{1,15}$/.test(t.iface)) errors.push('output.network_interface must be an interface name');
    if (output.network_interface && t.iface && !t.multicast) {
      errors.push('output.network_interface is used only with a multicast group');
    }
    return errors;
  },
  claims(output) {
    const t = target(output);
    return t ? [udpClaim(t.host, t.port, t.iface)] : [];
  },
  elementClaims(el) {
    const p = el.properties;
    const iface = p['multicast-iface'] || undefined;
    if (el.factory === 'udpsink') {
      const port = portOf(p.port);
      return p.host && port ? [udpClaim(p.host, port, iface)] : [];
    }
    if (el.factory === 'multiudpsink') return clientList(p.clients ?? '').map((c) => udpClaim(c.host, c.port, iface));
    return [];
  },
  fragment(output, streams, ctx) {
    const t = target(output)!;
    const sink = element('udpsink', {
      name: ctx.name('udpsink'),
      host: t.host,
      port: t.port,
      ...(t.multicast ? { 'auto-multicast': true, 'multicast-iface': t.iface, 'ttl-mc': MULTICAST_TTL } : {}),
    });
    // A codec without a TS mapping goes as RTP (a passed-through stream's codec is probed before composing).
    // Audio (Codec2) joins the bundle as its second stream; validate refused it beside a TS-bound video codec.
    const rtp = streams.some((s) => s.codec && !s.codec.containers.includes(MPEG_TS.container));
    if (rtp) {
      const bundle = rtpBundle(ctx, streams);
      const sdp = buildSdp({
        name: ctx.pipelineId,
        address: t.host,
        ttl: MULTICAST_TTL,
        media: bundle.media.map((m) => ({ ...m, port: t.port, proto: 'RTP/AVP' as const })),
      });
      return { shared: `${bundle.funnel} ! ${sink}`, streams: bundle.chains, sdp, klvStamp: 'due' };
    }
    const mux = ctx.name('mux');
    return {
      shared: `${element('mpegtsmux', { name: mux, alignment: 7 })} ! ${sink}`,
      streams: streams.map(() => `queue ! ${mux}.`),
    };
  },
});
