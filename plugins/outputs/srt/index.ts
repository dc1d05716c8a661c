/**
 * SRT (srtsink): srt://host:port calls a listener, srt://0.0.0.0:port (or srt://:port) listens and serves every
 * caller that connects; ?mode=rendezvous meets a peer that does the same. MPEG-TS inside, in 7×188-byte messages
 * as over UDP, so it carries H.264/H.265 and KLV but neither AV1 nor Codec2 audio (refused at create). A listener
 * plays from the start, with nobody connected (wait-for-connection=false): the encoder runs and a caller joins at
 * the next keyframe. A caller whose listener is absent, lost or refuses it fails with an error the core reports and
 * recovers from with backoff, until the listener is there. README.md has the details.
 */
import { definePlugin, element, muxCarriesKlv, tsOnlyOutputErrors, type OutputPlugin, type TransportStats } from '../../../core/sdk';
import { MPEG_TS } from '../../shared/mpegts';
import { describeTarget, parseSrtUri, srtClaims, srtProperties, srtSecrets, srtTarget, type SrtTarget } from '../../shared/srt';

/** SRT's own figures about the connection, per caller for a listener (combined), or its one connection. */
const STATS: TransportStats = {
  property: 'stats',
  figures: {
    rtt_ms: { field: 'rtt-ms', combine: 'max' },
    packets_sent: { field: 'packets-sent' },
    packets_lost: { field: 'packets-sent-lost' },
    packets_retransmitted: { field: 'packets-retransmitted' },
    packets_dropped: { field: 'packets-sent-dropped' },
    send_rate_kbps: { field: 'send-rate-mbps', scale: 1000 },
    bandwidth_kbps: { field: 'bandwidth-mbps', scale: 1000, combine: 'max' },
    latency_ms: { field: 'negotiated-latency-ms', combine: 'max' },
    bytes_sent: { field: 'bytes-sent-total' },
  },
};

/**
 * 1.22's srtsink says "Connection does not exist" alike for a caller with no listener and for one the listener
 * refused (a different passphrase, key length or stream id): the context names both.
 */
function errorContext(t: SrtTarget): string {
  if (t.mode === 'listener') return `SRT output (${describeTarget(t)})`;
  const peer = t.mode === 'caller' ? 'the listener' : 'the peer';
  return `SRT output (${describeTarget(t)}; ${peer} must be there, with the same passphrase, key length and stream id)`;
}

export default definePlugin<OutputPlugin>({
  kind: 'output',
  name: 'srt',
  version: '1.0.0',
  description: 'SRT caller, listener or rendezvous (srtsink; MPEG-TS)',
  examples: {
    valid: [
      'srt://127.0.0.1:9000',
      'srt://0.0.0.0:9000?latency=200',
      'srt://:9000?passphrase=it"s\\a!secret=x&pbkeylen=32',
      'srt://10.0.0.5:9000?mode=rendezvous&streamid=%23!::r=live name=x ! fakesink',
    ],
    invalid: ['srt://127.0.0.1:9000?mode=push', 'srt://0.0.0.0:9000?passphrase=short', 'srt://127.0.0.1:9000?bitrate=1', 'srt://0.0.0.0:9000?mode=caller'],
  },
  supportsOnDemand: false,
  carriesKlv: muxCarriesKlv(MPEG_TS),
  accepts: (uri) => uri.startsWith('srt://'),
  validate(output, pipeline, codec) {
    const parsed = parseSrtUri(output.uri, 'output.uri');
    const errors = 'errors' in parsed ? [...parsed.errors] : [];
    errors.push(...tsOnlyOutputErrors('SRT', pipeline, codec, MPEG_TS));
    if (output.network_interface) errors.push('output.network_interface is used only with a UDP multicast group');
    return errors;
  },
  claims(output) {
    const parsed = parseSrtUri(output.uri, 'output.uri');
    return 'target' in parsed ? srtClaims(parsed.target) : [];
  },
  secrets: srtSecrets,
  fragment(output, streams, ctx) {
    const t = srtTarget(output.uri);
    const name = ctx.name('srtsink');
    const mux = ctx.name('mux');
    // A listener must not hold the stream until someone calls: the encoder, the statistics and the callers that
    // come later all need it flowing (wait-for-connection=false drops what nobody takes).
    const sink = element('srtsink', { name, ...srtProperties(t), ...(t.mode === 'listener' ? { 'wait-for-connection': false } : {}) });
    return {
      shared: `${element('mpegtsmux', { name: mux, alignment: 7 })} ! ${sink}`,
      streams: streams.map(() => `queue ! ${mux}.`),
      transport: { element: name, errorContext: errorContext(t), stats: t.mode === 'listener' ? { ...STATS, peers: { field: 'callers', count: 'connections' } } : STATS },
    };
  },
});
