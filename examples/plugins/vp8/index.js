'use strict';
/**
 * An example vendor plugin for encoderd: VP8 video with libvpx's vp8enc (gst-plugins-good).
 *
 * encoderd loads every sub-folder of --plugins-dir and calls the factory exported here with its SDK, so this file
 * needs nothing from the core's paths and no build step. Everything the plugin contributes is a plain value:
 *   - validation of `encoding` (VP8's frame-size limit),
 *   - a licence feature ("vp8": a signed licence must list it before anything encodes VP8),
 *   - the encoder fragment for simple mode (`encoding.codec: "vp8"`),
 *   - the live bitrate change,
 *   - the RTP mapping (rtpvp8pay, VP8/90000),
 *   - the advanced-mode macro `<svc:vp8 bitrate=800 />`.
 */

// VP8 stores width and height in 14 bits.
const MAX_DIMENSION = 16383;
// quality 1 (fastest) … 10 (best) onto libvpx's realtime speed (cpu-used): higher is faster and coarser.
const CPU_USED = [16, 14, 12, 10, 9, 8, 7, 6, 5, 4];

module.exports = (sdk) => {
  const { caps, definePlugin, element, gstInt } = sdk;

  function vp8(name, kbps, cpuUsed, keyframeDistance) {
    return [
      caps('video/x-raw', { format: 'I420' }),
      element('vp8enc', {
        name,
        'target-bitrate': Number(gstInt(kbps)) * 1000,
        'end-usage': 'cbr',
        deadline: 1, // realtime: never spend longer than one frame
        'cpu-used': cpuUsed,
        // A keyframe every 2 s at most, so joiners of a live stream wait little.
        'keyframe-max-dist': keyframeDistance,
        'error-resilient': 'default',
      }),
    ].join(' ! ');
  }

  return definePlugin({
    kind: 'codec',
    name: 'vp8',
    version: '1.0.0',
    description: 'VP8 video (vp8enc), an example vendor plugin',
    codec: 'vp8',
    media: 'video',
    licenceFeature: 'vp8',
    caps: 'video/x-vp8',
    // GStreamer 1.22 has no vp8parse; vp8enc's output is already framed, so nothing needs to sit in front.
    parser: 'identity',
    containers: ['matroska'],
    liveParams: ['bitrate'],
    rtp: {
      encodingName: 'VP8',
      clockRate: 90000,
      payloader: (_ctx, name, pt) => element('rtpvp8pay', { name, pt }),
      depayloader: () => 'rtpvp8depay',
    },
    validate(encoding) {
      const errors = [];
      for (const field of ['width', 'height']) {
        if (encoding[field] > MAX_DIMENSION) errors.push(`encoding.${field} must be at most ${MAX_DIMENSION} for vp8`);
      }
      return errors;
    },
    encoder(encoding, ctx) {
      const name = ctx.name('venc');
      const description = vp8(name, encoding.bitrate, CPU_USED[encoding.quality - 1] ?? 8, Math.max(1, encoding.fps * 2));
      return { description, element: name };
    },
    // libvpx takes a new target bitrate on a running encoder (vpx_codec_enc_config_set): no rebuild.
    liveChange: (param, value, elementName) =>
      param === 'bitrate' ? [{ element: elementName, property: 'target-bitrate', value: Number(gstInt(value)) * 1000 }] : [],
    macro: {
      tag: 'vp8',
      attributes: { bitrate: { min: 5, max: 5000, default: 500 } },
      expand: (attrs, ctx) => vp8(ctx.name('vp8'), attrs.bitrate, 8, 60),
    },
  });
};
