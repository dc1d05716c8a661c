/**
 * H.264 with x264enc. `format=I420` goes in front: without it x264enc negotiates High 4:4:4 10-bit, which most
 * decoders cannot play. Only the bitrate changes live (x264's reconfig: smooth, no IDR).
 */
import { caps, definePlugin, element, gstInt, type CodecPlugin } from '../../../core/sdk';

// quality 1 (fastest) … 10 (best) onto x264's presets, capped where a 2-core appliance can still run live.
const PRESETS = ['ultrafast', 'ultrafast', 'superfast', 'superfast', 'veryfast', 'veryfast', 'faster', 'fast', 'medium', 'slow'];

export default definePlugin<CodecPlugin>({
  kind: 'codec',
  name: 'h264',
  version: '1.0.0',
  description: 'H.264 video (x264enc)',
  codec: 'h264',
  media: 'video',
  licenceFeature: 'h264',
  caps: 'video/x-h264',
  parser: 'h264parse',
  // A passed-through source may send SPS/PPS once (or only out of band, as RTP's sprop-parameter-sets): repeat them.
  passthroughParser: 'h264parse config-interval=-1',
  containers: ['mpegts', 'matroska', 'mp4'],
  // H.264 Level 5.2 (Table A-1: MaxFS 36 864 macroblocks, MaxMBPS 2 073 600): the largest stream decoders are
  // built for, and a bounded encoder: 4096×2304 took 123 MB RSS in x264 (docs/dataplane.md, "Codec limits").
  // 16384×16384 opens, at 2.7 GB. x264 refuses an odd size in 4:2:0 ("Can not initialize x264 encoder").
  limits: { maxWidth: 8192, maxHeight: 8192, maxFramePixels: 9_437_184, maxFps: 120, maxPixelRate: 530_841_600, evenDimensions: true },
  liveParams: ['bitrate'],
  rtp: {
    encodingName: 'H264',
    clockRate: 90000,
    // Parameter sets are repeated by h264parse, once per access unit before its IDR. rtph264pay's own
    // config-interval=-1 puts them before every IDR *slice*: x264's sliced threads (tune=zerolatency) make two
    // slices a frame, and ffmpeg decodes `SPS PPS slice SPS PPS slice` as two broken pictures (docs/dataplane.md).
    payloader: (_ctx, name, pt) => `h264parse config-interval=-1 ! ${element('rtph264pay', { name, pt, 'config-interval': 0 })}`,
    depayloader: () => 'rtph264depay ! h264parse',
  },
  encoder(encoding, ctx) {
    const name = ctx.name('venc');
    const description = [
      caps('video/x-raw', { format: 'I420' }),
      element('x264enc', {
        name,
        bitrate: encoding.bitrate,
        tune: 'zerolatency',
        'speed-preset': PRESETS[encoding.quality - 1] ?? 'veryfast',
        // A keyframe every 2 s at most, so joiners of a live stream wait little.
        'key-int-max': Math.max(1, encoding.fps * 2),
      }),
      caps('video/x-h264', { profile: 'high' }),
      'h264parse',
    ].join(' ! ');
    return { description, element: name };
  },
  liveChange: (param, value, elementName) =>
    param === 'bitrate' ? [{ element: elementName, property: 'bitrate', value: Number(gstInt(value)) }] : [],
  macro: {
    tag: 'h264',
    attributes: { bitrate: { min: 5, max: 5000, default: 500 } },
    expand: (attrs, ctx) => [
      caps('video/x-raw', { format: 'I420' }),
      element('x264enc', { name: ctx.name('h264'), bitrate: attrs.bitrate, tune: 'zerolatency', 'speed-preset': 'veryfast' }),
      caps('video/x-h264', { profile: 'high' }),
      'h264parse',
    ].join(' ! '),
  },
});
