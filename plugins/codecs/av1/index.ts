/**
 * AV1 with av1enc (libaom), set for realtime CBR. Three rules from dataplane-findings §1.3 and §7:
 * - min-quantizer and max-quantizer are always set (0/63): with 1.22's defaults (0/0) libaom asserts and the
 *   whole process aborts in realtime CBR.
 * - 1.22's av1enc ignores force-key-unit, so a late RTSP joiner waits for the next natural keyframe: the
 *   keyframe distance is kept at 2 s or less.
 * - Only target-bitrate changes live; anything else (end-usage, q range, usage profile) would need a rebuild.
 * AV1 has no MPEG-TS mapping that players read (findings §1.2), so its containers are Matroska and MP4 only;
 * over the network it goes as RTP (our rtpav1pay, AOM payload format, AV1/90000).
 */
import { caps, definePlugin, element, gstInt, type CodecPlugin } from '../../../core/sdk';

/** quality 1 (fastest) … 10 (best) onto libaom's realtime speeds 10 … 6 (lower is slower and better). */
export function cpuUsed(quality: number): number {
  return 10 - Math.round(((quality - 1) * 4) / 9);
}

/** The keyframe distance in frames: at most 2 s, and never more than libaom's realtime default of 60. */
export function keyframeDistance(fps: number): number {
  return Math.max(1, Math.min(fps * 2, 60));
}

function av1(name: string, bitrate: number, cpu: number, kfDist: number): string {
  return [
    caps('video/x-raw', { format: 'I420' }),
    element('av1enc', {
      name,
      'usage-profile': 'realtime',
      'end-usage': 'cbr',
      'cpu-used': cpu,
      'target-bitrate': bitrate,
      'min-quantizer': 0,
      'max-quantizer': 63,
      'keyframe-max-dist': kfDist,
      'row-mt': true,
    }),
    'av1parse',
    caps('video/x-av1', { 'stream-format': 'obu-stream', alignment: 'tu' }),
  ].join(' ! ');
}

export default definePlugin<CodecPlugin>({
  kind: 'codec',
  name: 'av1',
  version: '1.0.0',
  description: 'AV1 video (av1enc, realtime CBR); RTP via rtpav1pay',
  codec: 'av1',
  media: 'video',
  licenceFeature: 'av1',
  caps: 'video/x-av1',
  parser: 'av1parse',
  containers: ['matroska', 'mp4'],
  // AV1 Level 5.3 (Annex A.3: MaxPicSize 8 912 896, MaxHSize 8192, MaxVSize 4352, MaxDisplayRate 1 069 547 520).
  // av1enc takes 4×4 at least (its caps); libaom pads an odd size itself, so odd is fine (631×521 encodes).
  limits: { minWidth: 4, minHeight: 4, maxWidth: 8192, maxHeight: 4352, maxFramePixels: 8_912_896, maxFps: 120, maxPixelRate: 1_069_547_520 },
  liveParams: ['bitrate'],
  // The spec: "Multiview always encodes AV1 at quality 5".
  multiview: { quality: 5 },
  rtp: {
    encodingName: 'AV1',
    clockRate: 90000,
    payloader: (_ctx, name, pt) => `av1parse ! ${element('rtpav1pay', { name, pt })}`,
    depayloader: () => 'rtpav1depay ! av1parse',
  },
  encoder(encoding, ctx) {
    const name = ctx.name('venc');
    return { description: av1(name, encoding.bitrate, cpuUsed(encoding.quality), keyframeDistance(encoding.fps)), element: name };
  },
  liveChange: (param, value, elementName) =>
    param === 'bitrate' ? [{ element: elementName, property: 'target-bitrate', value: Number(gstInt(value)) }] : [],
  macro: {
    tag: 'av1',
    attributes: { bitrate: { min: 5, max: 5000, default: 500 } },
    expand: (attrs, ctx) => av1(ctx.name('av1'), attrs.bitrate, 8, 60),
  },
});
