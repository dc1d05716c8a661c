/**
 * SRT (srtsrc): srt://host:port calls a sender that listens (another encoder's SRT listener output), srt://:port
 * or srt://0.0.0.0:port listens for one caller; ?mode=rendezvous meets a peer. The stream is MPEG-TS, taken like a
 * UDP source's: decoded (with its audio and KLV when asked) or parsed for passthrough. A lost or refused connection
 * is an error (a caller) or an end of stream (a listener whose caller left), and the core reconnects with backoff.
 * A listener claims its port. README.md has the details.
 */
import { caps, decodedTails, definePlugin, element, parsedTails, type SourcePlugin, type TransportStats } from '../../../core/sdk';
import { describeTarget, parseSrtUri, srtClaims, srtProperties, srtSecrets, srtTarget } from '../../shared/srt';

/** SRT's own figures about the connection, as a receiver sees it. */
const STATS: TransportStats = {
  property: 'stats',
  figures: {
    rtt_ms: { field: 'rtt-ms', combine: 'max' },
    packets_received: { field: 'packets-received' },
    packets_lost: { field: 'packets-received-lost' },
    // Reported by srtsrc from GStreamer 1.24; 1.22 leaves them out, and so do the figures.
    packets_retransmitted: { field: 'packets-received-retransmitted' },
    packets_dropped: { field: 'packets-received-dropped' },
    receive_rate_kbps: { field: 'receive-rate-mbps', scale: 1000 },
    bandwidth_kbps: { field: 'bandwidth-mbps', scale: 1000, combine: 'max' },
    latency_ms: { field: 'negotiated-latency-ms', combine: 'max' },
    bytes_received: { field: 'bytes-received-total' },
  },
};

export default definePlugin<SourcePlugin>({
  kind: 'source',
  name: 'srt',
  version: '1.0.0',
  description: 'MPEG-TS over SRT, as caller, listener or rendezvous (srtsrc)',
  examples: {
    valid: [
      'srt://127.0.0.1:9000',
      'srt://:9000?latency=250',
      'srt://0.0.0.0:9000?passphrase=it"s\\a!secret=x&pbkeylen=16',
      'srt://127.0.0.1:9000?streamid=%23!::r=live name=x ! fakesink',
    ],
    invalid: ['srt://127.0.0.1:9000?mode=pull', 'srt://127.0.0.1:9000?passphrase=123456789', 'srt://127.0.0.1', 'srt://:9000?mode=rendezvous'],
  },
  producesRawOnly: false,
  mayCarryAudio: true,
  accepts: (uri) => uri.startsWith('srt://'),
  validate(source) {
    const parsed = parseSrtUri(source.uri, 'source.uri');
    const errors = 'errors' in parsed ? [...parsed.errors] : [];
    if (source.latency_ms !== undefined) errors.push('source.latency_ms is for RTSP sources; an SRT source takes ?latency= in its URI');
    return errors;
  },
  claims(source) {
    const parsed = parseSrtUri(source.uri, 'source.uri');
    return 'target' in parsed ? srtClaims(parsed.target) : [];
  },
  secrets: srtSecrets,
  fragment(source, ctx, { decode, audio }) {
    const t = srtTarget(source.uri);
    const name = ctx.name('src');
    const src = element('srtsrc', { name, ...srtProperties(t) });
    const ts = caps('video/mpegts', { systemstream: 'true', packetsize: 188 });
    // As for a UDP source: with audio asked, the TS's audio comes decoded from the same decodebin as the video, and
    // so does its KLV (docs/klv.md).
    const tails = decode ? decodedTails(ctx, Boolean(audio), true) : { ...parsedTails(ctx), audio: undefined };
    return {
      description: `${src} ! ${ts} ! ${tails.video}`, kind: decode ? 'raw' : 'encoded', codec: null,
      ...(tails.audio ? { audio: tails.audio } : {}),
      ...(tails.klv ? { klv: tails.klv } : {}),
      transport: {
        element: name,
        errorContext: `SRT source (${describeTarget(t)})`,
        stats: t.mode === 'listener' ? { ...STATS, peers: { field: 'callers', count: 'connections' } } : STATS,
      },
    };
  },
});
