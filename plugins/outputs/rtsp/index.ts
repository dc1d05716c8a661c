/**
 * Local RTSP server: rtsp://0.0.0.0:<port>/<name> (or 127.0.0.1, or a host address to bind), served by the
 * addon's GstRTSPServer in the pipeline's engine host. Many clients share one running pipeline.
 * - Always running: the pipeline ends in one appsink per stream (rtsp_feed0, …); the mount's own small pipeline
 *   takes the samples through an appsrc into the codec's payloader (pay0, …). A keyframe is requested when a
 *   client plays (AV1 on 1.22 ignores it: its keyframe distance is kept ≤ 2 s instead).
 * - On demand: the whole pipeline is the mount's launch line, ending in the payloaders; the server builds it at
 *   the first client and tears it down after the last.
 * With audio, the Codec2 stream is a second track beside any video codec: feed rtsp_feed1 → pay1, or pay1 in the
 * on-demand launch. KLV (always running only: the engine host feeds it) is the last track, RFC 6597 (rtpklvpay,
 * m=application … SMPTE336M/90000), stamped when due: nothing here waits for it.
 * The port is the same resource a listening TCP output claims.
 */
import { buildSdp, definePlugin, element, FIRST_DYNAMIC_PT, type OutputPlugin, type RtspService } from '../../../core/sdk';

const DEFAULT_PORT = 554;

export function rtspTarget(uri: string): { host: string; port: number; path: string } | null {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return null;
  }
  if (u.protocol !== 'rtsp:' || !u.hostname || u.username || u.password || u.search || u.hash) return null;
  const path = u.pathname;
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(path)) return null;
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, port: u.port ? Number(u.port) : DEFAULT_PORT, path };
}

export default definePlugin<OutputPlugin>({
  kind: 'output',
  name: 'rtsp',
  version: '1.0.0',
  description: 'Local RTSP server (always running or on demand)',
  examples: { valid: ['rtsp://0.0.0.0:8554/live', 'rtsp://127.0.0.1:8554/cam/1'], invalid: ['rtsp://0.0.0.0:8554/', 'rtsp://0.0.0.0:8554/a b'] },
  supportsOnDemand: true,
  carriesKlv: () => true,
  accepts: (uri) => uri.startsWith('rtsp://'),
  validate(output) {
    const errors: string[] = [];
    if (!rtspTarget(output.uri)) errors.push('output.uri must be rtsp://0.0.0.0:<port>/<name>');
    if (output.network_interface) errors.push('output.network_interface is used only with a UDP multicast group');
    return errors;
  },
  claims(output) {
    const t = rtspTarget(output.uri);
    return t ? [{ resource: 'port', key: `tcp:${t.port}`, label: `TCP port ${t.port} (RTSP)` }] : [];
  },
  fragment(output, streams, ctx, { onDemand }) {
    const t = rtspTarget(output.uri)!;
    const codecs = streams.map((s) => {
      if (!s.codec) throw new Error('a local RTSP output needs a known codec for every stream');
      return s.codec;
    });
    const payloader = (i: number) => codecs[i].rtp.payloader(ctx, `pay${i}`, FIRST_DYNAMIC_PT + i);
    const sdp = buildSdp({
      name: ctx.pipelineId,
      address: t.host,
      attributes: ['range:npt=now-', 'control:*'],
      media: streams.map((s, i) => ({
        media: s.media === 'klv' ? 'application' as const : s.media,
        port: 0,
        proto: 'RTP/AVP' as const,
        pt: FIRST_DYNAMIC_PT + i,
        encodingName: codecs[i].rtp.encodingName,
        clockRate: codecs[i].rtp.clockRate,
        ...(codecs[i].rtp.channels ? { channels: codecs[i].rtp.channels } : {}),
        ...(s.fmtp ? { fmtp: s.fmtp } : {}),
        attributes: [`control:stream=${i}`],
      })),
    });
    const base = { host: t.host, port: t.port, path: t.path };
    if (onDemand) {
      // The core wraps the whole description as the launch line; it must end in the payloaders.
      const service: RtspService = { kind: 'rtsp', mode: 'launch', ...base, launch: '' };
      return { shared: '', streams: streams.map((_, i) => `queue ! ${payloader(i)}`), services: [service], sdp };
    }
    const feeds = streams.map((_, i) => ({ appsink: ctx.name(`rtsp_feed${i}`), launch: payloader(i) }));
    return {
      shared: '',
      streams: feeds.map((f) => `queue ! ${element('appsink', { name: f.appsink })}`),
      services: [{ kind: 'rtsp', mode: 'feed', ...base, feeds } satisfies RtspService],
      sdp,
      klvStamp: 'due',
    };
  },
});
