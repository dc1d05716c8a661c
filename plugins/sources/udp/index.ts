/**
 * udp://host:port and udp://iface@group:port: MPEG-TS over UDP (the STANAG 4609 habit), unicast or multicast.
 * For a multicast group the socket joins on the interface named inline; for unicast the host is the local address
 * to listen on (0.0.0.0 for any). A network source is shared freely: it claims nothing (two pipelines may listen to
 * one multicast group; reuse is on).
 */
import { caps, decodedTails, definePlugin, element, isMulticast, parseHostPort, parsedTails, type SourcePlugin } from '../../../core/sdk';

const SILENCE_NS = 3_000_000_000;

export default definePlugin<SourcePlugin>({
  kind: 'source',
  name: 'udp',
  version: '1.0.0',
  description: 'MPEG-TS over UDP unicast or multicast (udpsrc)',
  examples: { valid: ['udp://0.0.0.0:5000', 'udp://lo@239.1.1.1:5000'], invalid: ['udp://127.0.0.1', 'udp://lo@127.0.0.1:5000'] },
  producesRawOnly: false,
  mayCarryAudio: true,
  accepts: (uri) => uri.startsWith('udp://'),
  validate(source) {
    const hp = parseHostPort(source.uri, 'udp');
    if (!hp) return ['source.uri must be udp://host:port or udp://iface@group:port'];
    if (hp.iface && !isMulticast(hp.host)) return ['source.uri names an interface, which is used only with a multicast group'];
    return [];
  },
  claims: () => [],
  fragment(source, ctx, { decode, audio }) {
    const hp = parseHostPort(source.uri, 'udp')!;
    const src = element('udpsrc', {
      name: ctx.name('src'),
      address: hp.host,
      port: hp.port,
      'multicast-iface': hp.iface,
      'reuse': true,
      // Bursts of a few Mbit/s overflow the kernel's default receive buffer.
      'buffer-size': 2 * 1024 * 1024,
      // Silence for this long posts GstUDPSrcTimeout: the core treats it as a lost source and reconnects.
      timeout: SILENCE_NS,
    });
    const ts = caps('video/mpegts', { systemstream: 'true', packetsize: 188 });
    // With audio asked, the TS's audio comes decoded from the same decodebin as the video; so does its KLV
    // (STANAG 4609: MPEG-TS with an ST 0601 stream), which the core extracts (docs/klv.md).
    const tails = decode ? decodedTails(ctx, Boolean(audio), true) : { ...parsedTails(ctx), audio: undefined };
    return {
      description: `${src} ! ${ts} ! ${tails.video}`, kind: decode ? 'raw' : 'encoded', codec: null, lossMessages: ['GstUDPSrcTimeout'],
      ...(tails.audio ? { audio: tails.audio } : {}),
      ...(tails.klv ? { klv: tails.klv } : {}),
    };
  },
});
