/**
 * UDP unicast and multicast. Codecs that fit MPEG-TS (H.264, H.265) go as TS in 7×188-byte datagrams (the
 * STANAG 4609 habit); a codec with no TS mapping that players read (AV1) goes as an RTP bundle on the one port:
 * each stream its own payload type (video 96, then audio 97, then KLV as RFC 6597, …) merged by an rtpfunnel,
 * described by the SDP at GET /svc/pipeline/{id}/sdp. Multicast is sent on the interface named by network_interface or inline as
 * udp://iface@group:port, with TTL 1 (the appliance's segment).
 */
import { buildSdp, definePlugin, element, isMulticast, parseHostPort, rtpBundle, streamCarriesKlv, streamOutputErrors, type OutputPlugin, type OutputSpec } from '../../../core/sdk';

const MULTICAST_TTL = 1;

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
    errors.push(...streamOutputErrors('UDP', pipeline, codec));
    if (t.iface && !/^[a-zA-Z0-9_.:-]{1,15}$/.test(t.iface)) errors.push('output.network_interface must be an interface name');
    if (output.network_interface && t.iface && !t.multicast) {
      errors.push('output.network_interface is used only with a multicast group');
    }
    return errors;
  },
  claims(output) {
    const t = target(output);
    if (!t) return [];
    return t.multicast
      ? [{ resource: 'udp-multicast', key: `${t.host}:${t.port}@${t.iface ?? ''}`, label: `UDP multicast group ${t.host}:${t.port}${t.iface ? ` on ${t.iface}` : ''}` }]
      : [{ resource: 'udp-destination', key: `${t.host.toLowerCase()}:${t.port}`, label: `UDP destination ${t.host}:${t.port}` }];
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
    const rtp = streams.some((s) => s.codec && !s.codec.containers.includes('mpegts'));
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
