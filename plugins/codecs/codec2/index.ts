/**
 * Codec2 speech (the addon's codec2enc, statically registered; also in native/build/gst-plugins for receivers).
 * Codec2 has no parser element and fits no standard container, so it travels over RTP only (CODEC2/8000, the
 * mode in `a=fmtp:<pt> mode=<bps>`). The simple-mode audio chain in front of it (volume, high-pass, webrtcdsp) is
 * the core's (core/compose/audio.ts); this plugin takes raw audio of any rate and layout from there.
 *
 * Packets carry 80 ms of speech (4 frames at 3200/2400, 2 at the 40 ms modes): on a low-bitrate radio link the
 * 40 bytes of IP/UDP/RTP headers per packet cost more than the speech itself, and 80 ms more delay is little
 * beside the video's (docs/audio.md).
 *
 * An audio codec: `encoding.bitrate` carries the Codec2 mode in bits per second (audio.codec2_mode), not kbps.
 * codec2enc reads its mode only when the stream starts, so nothing changes live.
 */
import { caps, definePlugin, element, gstInt, type CodecPlugin } from '../../../core/sdk';

export const CODEC2_MODES = [3200, 2400, 1600, 1400, 1300, 1200] as const;

/** Speech per RTP packet; frames-per-packet=64 lets max-ptime alone decide, whatever the mode's frame length. */
export const PACKET_NS = 80_000_000;

function encoder(name: string, mode: number): string {
  return [
    'audioconvert',
    'audioresample',
    caps('audio/x-raw', { format: 'S16LE', rate: 8000, channels: 1 }),
    element('codec2enc', { name, mode: Number(gstInt(mode)) }),
  ].join(' ! ');
}

export default definePlugin<CodecPlugin>({
  kind: 'codec',
  name: 'codec2',
  version: '1.0.0',
  description: 'Codec2 speech audio (codec2enc)',
  codec: 'codec2',
  media: 'audio',
  licenceFeature: 'codec2',
  caps: 'audio/x-codec2',
  parser: 'identity',
  containers: [],
  liveParams: [],
  rtp: {
    encodingName: 'CODEC2',
    clockRate: 8000,
    payloader: (_ctx, name, pt) => element('rtpcodec2pay', { name, pt, 'frames-per-packet': 64, 'max-ptime': PACKET_NS }),
    depayloader: () => 'rtpcodec2depay',
    fmtp: (encoding) => `mode=${gstInt(encoding.bitrate)}`,
  },
  validate: (encoding) => ((CODEC2_MODES as readonly number[]).includes(encoding.bitrate)
    ? []
    : [`audio.codec2_mode must be one of ${CODEC2_MODES.join(', ')}`]),
  encoder(encoding, ctx) {
    const name = ctx.name('aenc');
    // validate() refuses any other value before a pipeline is composed; the fallback keeps probing callers safe.
    const mode = (CODEC2_MODES as readonly number[]).includes(encoding.bitrate) ? encoding.bitrate : 2400;
    return { description: encoder(name, mode), element: name };
  },
  liveChange: () => [],
  macro: {
    tag: 'codec2',
    attributes: { mode: { oneOf: CODEC2_MODES, default: 2400 } },
    expand: (attrs, ctx) => encoder(ctx.name('codec2'), attrs.mode),
  },
});
