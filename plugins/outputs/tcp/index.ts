/**
 * TCP: tcp://0.0.0.0:port (or [::]) listens and serves every client that connects; tcp://host:port connects out
 * to a receiver that listens. H.264/H.265 go as MPEG-TS; AV1 goes as its RTP bundle with RFC 4571 framing
 * (rtpstreampay: a 16-bit length before each packet), KLV included, described by the SDP at GET /svc/pipeline/{id}/sdp.
 * A listening port is the same resource as a local RTSP server's port, so the two conflict.
 */
import { buildSdp, definePlugin, element, parseHostPort, rtpBundle, streamCarriesKlv, streamOutputErrors, type Claim, type OutputPlugin, type OutputSpec } from '../../../core/sdk';
import { MPEG_TS } from '../../shared/mpegts';

const ANY = new Set(['0.0.0.0', '::']);

function target(output: OutputSpec) {
  const hp = parseHostPort(output.uri, 'tcp');
  if (!hp || hp.iface) return null;
  return { ...hp, listen: ANY.has(hp.host) };
}

/** A listening port, in simple and advanced mode alike (the same resource as a local RTSP server's port). */
const portClaim = (port: number): Claim => ({ resource: 'port', key: `tcp:${port}`, label: `TCP port ${port}` });

export default definePlugin<OutputPlugin>({
  kind: 'output',
  name: 'tcp',
  version: '1.0.0',
  description: 'TCP server or client (MPEG-TS; RFC 4571 RTP for AV1)',
  examples: { valid: ['tcp://0.0.0.0:5000', 'tcp://127.0.0.1:5000'], invalid: ['tcp://0.0.0.0', 'tcp://lo@127.0.0.1:5000'] },
  supportsOnDemand: false,
  carriesKlv: streamCarriesKlv,
  accepts: (uri) => uri.startsWith('tcp://'),
  validate(output, pipeline, codec) {
    const errors: string[] = [];
    errors.push(...streamOutputErrors('TCP', pipeline, codec, MPEG_TS));
    if (!target(output)) errors.push('output.uri must be tcp://0.0.0.0:port (listen) or tcp://host:port (connect)');
    if (output.network_interface) errors.push('output.network_interface is used only with a UDP multicast group');
    return errors;
  },
  claims(output) {
    const t = target(output);
    return t?.listen ? [portClaim(t.port)] : [];
  },
  elementClaims(el) {
    // Port 0 asks the kernel for any free port: nothing to conflict on.
    const port = el.factory === 'tcpserversink' && /^\d+$/.test(el.properties.port ?? '') ? Number(el.properties.port) : 0;
    return port ? [portClaim(port)] : [];
  },
  fragment(output, streams, ctx) {
    const t = target(output)!;
    const sink = t.listen
      ? element('tcpserversink', { name: ctx.name('tcpsink'), host: t.host, port: t.port })
      : element('tcpclientsink', { name: ctx.name('tcpsink'), host: t.host, port: t.port });
    // Audio (Codec2) joins the bundle as its second stream; validate refused it beside a TS-bound video codec.
    const rtp = streams.some((s) => s.codec && !s.codec.containers.includes(MPEG_TS.container));
    if (rtp) {
      const bundle = rtpBundle(ctx, streams);
      const sdp = buildSdp({
        name: ctx.pipelineId,
        address: t.host,
        media: bundle.media.map((m) => ({
          ...m,
          port: t.port,
          proto: 'TCP/RTP/AVP' as const,
          // RFC 4145: who opens the connection.
          attributes: [`setup:${t.listen ? 'passive' : 'active'}`, 'connection:new'],
        })),
      });
      return { shared: `${bundle.funnel} ! rtpstreampay ! ${sink}`, streams: bundle.chains, sdp, klvStamp: 'due' };
    }
    const mux = ctx.name('mux');
    return {
      shared: `${element('mpegtsmux', { name: mux, alignment: 7 })} ! ${sink}`,
      streams: streams.map(() => `queue ! ${mux}.`),
    };
  },
});
