/**
 * UDP unicast and multicast. Codecs that fit MPEG-TS (H.264, H.265) go as TS in 7×188-byte datagrams (the
 * STANAG 4609 habit); a codec with no TS mapping that players read (AV1) goes as an RTP bundle on the one port:
 * each stream its own payload type (video 96, then audio 97, …) merged by an rtpfunnel, described by the SDP at
 * GET /svc/pipeline/{id}/sdp. Multicast is sent on the interface named by network_interface or inline as
 * udp://iface@group:port, with TTL 1 (the appliance's segment).
 */
import { buildSdp, definePlugin, element, isMulticast, parseHostPort, rtpBundle, type CodecInfo, type OutputPlugin, type OutputSpec } from '../../../core/sdk';

const MULTICAST_TTL = 1;

function target(output: OutputSpec) {
  const hp = parseHostPort(output.uri, 'udp');
  if (!hp) return null;
  const iface = output.network_interface ?? hp.iface;
  return { ...hp, iface, multicast: isMulticast(hp.host) };
}

// The codec of a passed-through stream is known only when it arrives; by then 1.22's parsebin has fixed a stream
// format MPEG-TS cannot take (H.264 as avc), and RTP needs the payloader chosen up front (docs/dataplane.md).
const PASSTHROUGH = 'output.uri: a UDP output needs encoding (a stream passes through without encoding only into a .mkv recording)';

// Spec create rule 4: only the RTP bundle carries Codec2 here, and only a codec without an MPEG-TS mapping (AV1)
// goes as that bundle; H.264/H.265 go as MPEG-TS, which has no Codec2 mapping.
const AUDIO_NEEDS_AV1 = 'audio over these outputs requires the AV1 video codec';
const carriesAudio = (codec: CodecInfo | null) => Boolean(codec && !codec.containers.includes('mpegts'));

export default definePlugin<OutputPlugin>({
  kind: 'output',
  name: 'udp',
  version: '1.1.0',
  description: 'UDP unicast and multicast (MPEG-TS; RTP bundle for AV1)',
  examples: { valid: ['udp://127.0.0.1:5000', 'udp://lo@239.1.1.1:5000'], invalid: ['udp://127.0.0.1', 'udp://bad iface@239.1.1.1:5000'] },
  supportsOnDemand: false,
  // MPEG-TS carries KLV as its own stream (stream_type 0x06, 'KLVA'); the RTP bundle (AV1) does not take it yet.
  carriesKlv: (_output, video) => Boolean(video?.containers.includes('mpegts')),
  accepts: (uri) => uri.startsWith('udp://'),
  validate(output, pipeline, codec) {
    const t = target(output);
    if (!t) return ['output.uri must be udp://host:port or udp://iface@group:port'];
    const errors: string[] = [];
    if (!codec && !pipeline.encoding) errors.push(PASSTHROUGH);
    if (pipeline.audio && !carriesAudio(codec)) errors.push(AUDIO_NEEDS_AV1);
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
    // An unknown passthrough codec is remuxed into TS; only a known codec without a TS mapping goes as RTP.
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
      return { shared: `${bundle.funnel} ! ${sink}`, streams: bundle.chains, sdp };
    }
    const mux = ctx.name('mux');
    return {
      shared: `${element('mpegtsmux', { name: mux, alignment: 7 })} ! ${sink}`,
      streams: streams.map(() => `queue ! ${mux}.`),
    };
  },
});
