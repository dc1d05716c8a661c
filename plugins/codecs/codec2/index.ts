/**
 * Codec2 speech (the addon's codec2enc, statically registered; also in native/build/gst-plugins for receivers).
 * Codec2 has no parser element and fits no standard container, so it travels over RTP only (CODEC2/8000).
 *
 * An audio codec: `encoding.bitrate` carries the Codec2 mode in bits per second (audio.codec2_mode), not kbps.
 * codec2enc reads its mode only when the stream starts, so nothing changes live.
 */
import { caps, definePlugin, element, gstInt, type CodecPlugin } from '../../../core/sdk';

export const CODEC2_MODES = [3200, 2400, 1600, 1400, 1300, 1200] as const;

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
    payloader: (_ctx, name, pt) => element('rtpcodec2pay', { name, pt }),
    depayloader: () => 'rtpcodec2depay',
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
