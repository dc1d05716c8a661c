/**
 * H.265 with x265enc. `format=I420` goes in front so x265 encodes Main 8-bit 4:2:0, which every decoder plays.
 * Only the bitrate changes live, and x265enc 1.22 does not use x265's reconfig: it closes x265 and opens it again,
 * so a live bitrate change costs a keyframe and a short burst (dataplane-findings §7.2). That is still better
 * than a pipeline rebuild, which interrupts every receiver. Changes are paced to one every 30 s (liveChangeIntervalMs).
 *
 * SAO is always on (`sao=1`). libx265 3.5 allocates its SAO row buffers at every open and, when SAO is off (the
 * ultrafast and superfast presets), never frees them at close: each re-open, so each live bitrate change, leaked
 * 14–23 kB at 320×240, more with the picture's width and rows (docs/operations.md, "Memory over weeks"). With SAO
 * on they are freed, at +32 % encoding time at 720p superfast (docs/benchmarks.md). Not `limit-sao`, which costs
 * half that: with it one run of three leaked as much as SAO off.
 */
import { caps, definePlugin, element, gstInt, type CodecPlugin } from '../../../core/sdk';

// quality 1 (fastest) … 10 (best) onto x265's presets; x265 is about 3× x264's cost, so the top stays at "fast".
const PRESETS = ['ultrafast', 'ultrafast', 'ultrafast', 'superfast', 'superfast', 'veryfast', 'veryfast', 'faster', 'fast', 'fast'];

function x265(name: string, bitrate: number, preset: string, keyIntMax?: number): string {
  return [
    caps('video/x-raw', { format: 'I420' }),
    element('x265enc', { name, bitrate, tune: 'zerolatency', 'speed-preset': preset, 'key-int-max': keyIntMax, 'option-string': 'sao=1' }),
    caps('video/x-h265', { profile: 'main' }),
    // x265 writes VPS/SPS/PPS once; repeating them at each keyframe lets late joiners (TCP, UDP, TS) decode.
    element('h265parse', { 'config-interval': -1 }),
  ].join(' ! ');
}

export default definePlugin<CodecPlugin>({
  kind: 'codec',
  name: 'h265',
  version: '1.0.0',
  description: 'H.265 / HEVC video (x265enc)',
  codec: 'h265',
  media: 'video',
  licenceFeature: 'h265',
  caps: 'video/x-h265',
  parser: 'h265parse',
  // A passed-through source may send VPS/SPS/PPS once (or only out of band): repeat them at each keyframe.
  passthroughParser: 'h265parse config-interval=-1',
  containers: ['mpegts', 'matroska', 'mp4'],
  // H.265 Main, Level 5.2 (Table A.8: MaxLumaPs 8 912 896, MaxLumaSr 1 069 547 520; a side at most
  // sqrt(8 × MaxLumaPs) = 8444). x265enc takes 16×16 at least (its caps) and refuses an odd size in 4:2:0;
  // 16384×16384 opens, at 6.5 GB RSS (docs/dataplane.md, "Codec limits").
  limits: { minWidth: 16, minHeight: 16, maxWidth: 8192, maxHeight: 8192, maxFramePixels: 8_912_896, maxFps: 120, maxPixelRate: 1_069_547_520, evenDimensions: true },
  liveParams: ['bitrate'],
  // Each live change re-opens libx265 (above), and libx265 3.5 keeps about 1.2 kB of each open for good: at most one
  // change reaches the encoder every 30 s, the latest held until then (core/pipeline/live-pacer.ts), so a controller
  // that sets the rate every few seconds costs at most 120 re-opens an hour (docs/operations.md, "Memory over weeks").
  liveChangeIntervalMs: 30_000,
  rtp: {
    encodingName: 'H265',
    clockRate: 90000,
    payloader: (_ctx, name, pt) => `h265parse ! ${element('rtph265pay', { name, pt, 'config-interval': -1 })}`,
    depayloader: () => 'rtph265depay ! h265parse',
  },
  encoder(encoding, ctx) {
    const name = ctx.name('venc');
    // A keyframe every 2 s at most, so joiners of a live stream wait little.
    const description = x265(name, encoding.bitrate, PRESETS[encoding.quality - 1] ?? 'veryfast', Math.max(1, encoding.fps * 2));
    return { description, element: name };
  },
  liveChange: (param, value, elementName) =>
    param === 'bitrate' ? [{ element: elementName, property: 'bitrate', value: Number(gstInt(value)) }] : [],
  macro: {
    tag: 'h265',
    attributes: { bitrate: { min: 5, max: 5000, default: 500 } },
    expand: (attrs, ctx) => x265(ctx.name('h265'), attrs.bitrate, 'veryfast', 60),
  },
});
