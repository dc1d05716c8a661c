/**
 * Codec2 speech (the addon's codec2enc, statically registered; also in native/build/gst-plugins for receivers).
 * Codec2 has no parser element and fits no standard container, so it travels over RTP only (CODEC2/8000, the
 * mode in `a=fmtp:<pt> mode=<bps>`). The simple-mode audio chain in front of it (volume, high-pass, webrtcdsp) is
 * the core's (core/compose/audio.ts): it hands this plugin 8 kHz mono S16LE, the only input codec2enc takes
 * (`rawAudio`), and runs its filters at 8 kHz too.
 *
 * Packets carry 80 ms of speech (4 frames at 3200/2400, 2 at the 40 ms modes): on a low-bitrate radio link the
 * 40 bytes of IP/UDP/RTP headers per packet cost more than the speech itself, and 80 ms more delay is little
 * beside the video's (docs/audio.md).
 *
 * An audio codec, the spec's (the Audio object's `codec2_mode`, its list, default and message are this plugin's
 * parameter: `audio.codec2_mode`, in `encoding.params`). codec2enc reads its mode only when the stream starts, so
 * nothing changes live. Codec2 fits no container, MPEG-TS included: over UDP or TCP it needs the RTP bundle, which
 * among the built-in video codecs only AV1's stream goes as (spec create rule 4, whose message is here).
 */
import { caps, definePlugin, element, gstInt, type CodecPlugin, type EncodingSpec, type RawAudioFormat } from '../../../core/sdk';

/** The spec's modes, in bit/s, and its default (Audio object, `codec2_mode`). */
export const CODEC2_MODES = [3200, 2400, 1600, 1400, 1300, 1200] as const;
export const DEFAULT_MODE = 2400;
const MODE_MESSAGE = `audio.codec2_mode must be one of ${CODEC2_MODES.join(', ')}`;

/** The mode an encoding carries; validate() refuses any other value first, the fallback keeps probing callers safe. */
const modeOf = (encoding: EncodingSpec): number => {
  const mode = encoding.params?.codec2_mode;
  return typeof mode === 'number' && (CODEC2_MODES as readonly number[]).includes(mode) ? mode : DEFAULT_MODE;
};

/** What codec2enc takes: Codec2 codes 8 kHz mono speech and nothing else. */
export const RAW_AUDIO: RawAudioFormat = Object.freeze({ rate: 8000, channels: 1, format: 'S16LE' });

/** Speech per RTP packet; frames-per-packet=64 lets max-ptime alone decide, whatever the mode's frame length. */
export const PACKET_NS = 80_000_000;

/** The advanced-mode macro's encoder: there the core's chain is absent, so it converts to codec2enc's input itself. */
function macroEncoder(name: string, mode: number): string {
  return [
    'audioconvert',
    'audioresample',
    caps('audio/x-raw', { format: RAW_AUDIO.format, rate: RAW_AUDIO.rate, channels: RAW_AUDIO.channels }),
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
  rawAudio: RAW_AUDIO,
  parameters: {
    codec2_mode: { type: 'integer', enum: CODEC2_MODES, default: DEFAULT_MODE, description: 'Bits per second.' },
  },
  // The spec's words (Audio validation table, create rule 4).
  refusals: {
    muxedVideo: 'audio over these outputs requires the AV1 video codec',
    muxOnly: 'audio cannot be carried over {output}: it carries MPEG-TS, which has no Codec2 mapping; use a local RTSP output, or UDP or TCP with AV1',
    // No container GStreamer 1.22 muxes carries Codec2 (mpegtsmux, matroskamux and mp4mux have no caps for it).
    recorded: 'audio cannot be recorded into a .{ext} file: no container carries Codec2; use an RTSP, UDP or TCP output',
  },
  liveParams: [],
  rtp: {
    encodingName: 'CODEC2',
    clockRate: 8000,
    payloader: (_ctx, name, pt) => element('rtpcodec2pay', { name, pt, 'frames-per-packet': 64, 'max-ptime': PACKET_NS }),
    depayloader: () => 'rtpcodec2depay',
    fmtp: (encoding) => `mode=${gstInt(modeOf(encoding))}`,
  },
  validate: (encoding) => ((CODEC2_MODES as readonly unknown[]).includes(encoding.params?.codec2_mode ?? DEFAULT_MODE) ? [] : [MODE_MESSAGE]),
  encoder(encoding, ctx) {
    const name = ctx.name('aenc');
    return { description: element('codec2enc', { name, mode: Number(gstInt(modeOf(encoding))) }), element: name };
  },
  liveChange: () => [],
  macro: {
    tag: 'codec2',
    attributes: { mode: { oneOf: CODEC2_MODES, default: DEFAULT_MODE } },
    expand: (attrs, ctx) => macroEncoder(ctx.name('codec2'), attrs.mode),
  },
});
