/**
 * KLV in a composed pipeline (design §4, dataplane-findings §3):
 * - injection: an appsrc the engine host's pacer (core/klv/pacer.ts) pushes ST 0601 packets into, handed to the
 *   output as one more stream. The pacer stamps every buffer itself, ahead of the running time (1.22's mpegtsmux
 *   holds PTS-less KLV until end-of-stream, and waits for the KLV input before it releases video: docs/klv.md).
 *   A bounded, leaky queue: should the video stall, stale packets are dropped rather than piling up.
 * - extraction: the source's KLV pad (tsdemux's meta/x-klv, through decodebin or parsebin; rtspsrc's SMPTE336M
 *   track after rtpklvdepay) into an appsink the engine host watches, whose samples it also relays into the output's
 *   KLV stream when the pipeline has no geolocation. The capsfilter comes first so the demuxer's video pad can never
 *   link into this branch.
 */
import { element, type CodecInfo, type ComposeContext } from '../sdk';

export const KLV_CAPS = 'meta/x-klv,parsed=true';

/**
 * KLV as a stream an output carries: into MPEG-TS as meta/x-klv (stream_type 0x06, 'KLVA'), over RTP as RFC 6597
 * with the SMPTE336M encoding name and its own payload type (players drop KLV otherwise, MediaMTX #4848).
 */
export const KLV_STREAM: CodecInfo = Object.freeze({
  codec: 'klv',
  media: 'klv' as const,
  caps: 'meta/x-klv',
  // Whatever container the video goes in: an output carries KLV only where its carriesKlv said so (compose/tail.ts).
  containers: [],
  parser: 'identity',
  rtp: {
    encodingName: 'SMPTE336M',
    clockRate: 90000,
    payloader: (_ctx: ComposeContext, name: string, pt: number) => element('rtpklvpay', { name, pt }),
    depayloader: () => 'rtpklvdepay',
  },
});

export function klvInjector(ctx: ComposeContext): { appsrc: string; description: string } {
  const appsrc = ctx.name('klvsrc');
  return {
    appsrc,
    description: element('appsrc', {
      name: appsrc, 'is-live': true, 'do-timestamp': false, format: 'time', caps: KLV_CAPS, 'max-buffers': 50, 'leaky-type': 'downstream',
    }),
  };
}

/**
 * `from` is the pad reference (or chain) the source gives (e.g. `dec.`). `paced`: the source is read from storage, not
 * live (a file), so its demuxer runs ahead of the clock and the appsink waits for each packet's time; a live source's
 * packets are taken as they come.
 *
 * A live source's KLV never holds its demuxer: a leaky queue keeps the latest 3 s. A file's must keep every packet:
 * while the pipeline prerolls, decodebin's and parsebin's multiqueues let the demuxer read megabytes ahead (a 4 s
 * recording whole), and a leaky queue in front of the waiting appsink dropped all but the last 30 packets, so a looped
 * file's KLV lost its first seconds at every start. Its queue is unbounded: what it holds is that read-ahead, bounded
 * by the multiqueue upstream and by the file, and drained at the packets' own time.
 */
export function klvExtractor(ctx: ComposeContext, from: string, paced = false): { sink: string; description: string } {
  const sink = ctx.name('klvsink');
  return {
    sink,
    description: [
      from,
      element('capsfilter', { caps: 'meta/x-klv' }),
      element('queue', paced ? { 'max-size-buffers': 0, 'max-size-bytes': 0, 'max-size-time': 0 } : { leaky: 'downstream', 'max-size-buffers': 30 }),
      element('appsink', { name: sink, sync: paced, async: false, 'max-buffers': 30, drop: true }),
    ].join(' ! '),
  };
}
