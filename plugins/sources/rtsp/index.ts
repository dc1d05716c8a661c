/**
 * rtsp://… (and rtsps://…) through rtspsrc. latency_ms sets the jitter buffer; without it the service-wide
 * RTSP latency setting applies. The video stream is taken by a capsfilter on media=video; when the pipeline's
 * audio is the stream's own (audio.source stream), the first audio track is taken the same way and decoded; a KLV
 * track (SMPTE336M) is depayloaded for the core's KLV extraction. A
 * network source is shared freely: it claims nothing.
 */
import { caps, definePlugin, element, videoTail, type SourcePlugin } from '../../../core/sdk';

function valid(uri: string): boolean {
  try {
    const u = new URL(uri);
    return (u.protocol === 'rtsp:' || u.protocol === 'rtsps:') && u.hostname !== '';
  } catch {
    return false;
  }
}

export default definePlugin<SourcePlugin>({
  kind: 'source',
  name: 'rtsp',
  version: '1.0.0',
  description: 'RTSP client source (rtspsrc)',
  examples: { valid: ['rtsp://127.0.0.1:8554/live', 'rtsps://camera.example/stream/1'], invalid: ['rtsp://', 'rtsp:///no-host'] },
  producesRawOnly: false,
  mayCarryAudio: true,
  accepts: (uri) => /^rtsps?:\/\//i.test(uri),
  validate: (source) => (valid(source.uri) ? [] : ['source.uri must be rtsp://host[:port]/path']),
  claims: () => [],
  fragment(source, ctx, { decode, audio }) {
    const name = ctx.name('src');
    const src = element('rtspsrc', {
      name,
      location: source.uri,
      latency: source.latency_ms ?? ctx.settings.rtspLatencyMs,
      // Passed through, the stream keeps the sender's timing (docs/dataplane.md, passthrough, "Timing"): timestamps
      // from RTP time alone, not arrival times smoothed by the jitter buffer's skew estimate; and no lip-sync offset
      // from the sender's first RTCP report, which rtpbin applies between a session's streams as a step (any offset
      // over 1 ns is ignored).
      ...(decode ? {} : { 'buffer-mode': 'none', 'max-ts-offset': 1 }),
    });
    const description = `${src} ! ${caps('application/x-rtp', { media: 'video' })} ! ${videoTail(ctx, decode)}`;
    // A KLV track (RFC 6597, SMPTE336M), decoded or passed through alike.
    const klv = `${name}. ! ${caps('application/x-rtp', { media: 'application', 'encoding-name': 'SMPTE336M' })} ! rtpklvdepay`;
    if (!audio) return { description, kind: decode ? 'raw' : 'encoded', codec: null, klv };
    // The server's first audio track, decoded by whatever depayloader and decoder GStreamer has for it.
    const audioChain = `${name}. ! ${caps('application/x-rtp', { media: 'audio' })} ! ${element('decodebin', { name: ctx.name('adec') })} ! ${caps('audio/x-raw')}`;
    return { description, kind: decode ? 'raw' : 'encoded', codec: null, audio: audioChain, klv };
  },
});
