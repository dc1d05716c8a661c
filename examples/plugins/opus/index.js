'use strict';
/**
 * An example vendor plugin for encoderd: Opus audio with libopus's opusenc (gst-plugins-base), the audio codec every
 * receiver decodes.
 *
 * An audio codec is a codec plugin of `media: 'audio'`: a simple-mode pipeline picks it with `audio.codec: "opus"`,
 * after the core's audio chain (source, volume, filters: docs/audio.md). Everything it contributes is a plain value:
 *   - its own encoding parameters, fields of `audio` in the API's schema and OpenAPI document
 *     (`audio.opus_bitrate`, `audio.opus_application`), read back in `encoding.params`,
 *   - a licence feature ("opus"),
 *   - the raw audio its encoder takes (`rawAudio`: 48 kHz mono S16LE), which the core's audio chain converts to and
 *     runs its filters at, so Opus codes full-band audio,
 *   - the encoder fragment,
 *   - the RTP mapping (rtpopuspay, OPUS/48000/2, RFC 7587),
 *   - the containers that carry it: MPEG-TS among them, so the UDP and TCP outputs take it beside H.264 or H.265 in
 *     MPEG-TS, not only beside a video codec that goes as an RTP bundle,
 *   - the advanced-mode macro `<svc:opus bitrate=32 />` (kbit/s).
 */

// libopus's applications, by the names its API gives them, onto opusenc's audio-type.
const APPLICATIONS = { voip: 'voice', audio: 'generic', lowdelay: 'restricted-lowdelay' };
const DEFAULT_BITRATE = 32000;

module.exports = (sdk) => {
  const { caps, definePlugin, element, gstInt } = sdk;

  // Opus codes full-band audio at 48 kHz (it also takes 8 to 24 kHz, band-limited). Mono: the chain in front of it is
  // a speech chain (one microphone or a stream's voice, high-pass, noise suppression), and at the default 32 kbit/s
  // one channel of speech sounds better than two; webrtcdsp also does half the work.
  const RAW_AUDIO = Object.freeze({ rate: 48000, channels: 1, format: 'S16LE' });

  function opus(name, bitrate, application) {
    return element('opusenc', { name, bitrate: Number(gstInt(bitrate)), 'audio-type': APPLICATIONS[application] ?? 'voice' });
  }

  // Advanced mode has no core chain in front of the macro: it takes the audio to 48 kHz itself, in the channels it has.
  function macro(name, bitrate) {
    return [
      'audioconvert',
      'audioresample',
      caps('audio/x-raw', { rate: RAW_AUDIO.rate }),
      opus(name, bitrate, 'voip'),
    ].join(' ! ');
  }

  return definePlugin({
    kind: 'codec',
    name: 'opus',
    version: '1.0.0',
    description: 'Opus audio (opusenc), an example vendor plugin',
    codec: 'opus',
    media: 'audio',
    licenceFeature: 'opus',
    caps: 'audio/x-opus',
    parser: 'opusparse',
    containers: ['mpegts', 'matroska', 'mp4'],
    rawAudio: RAW_AUDIO,
    parameters: {
      opus_bitrate: { type: 'integer', minimum: 6000, maximum: 510000, default: DEFAULT_BITRATE, description: 'Bits per second.' },
      opus_application: {
        type: 'string', enum: Object.keys(APPLICATIONS), default: 'voip',
        description: 'What libopus tunes for: voip (speech), audio (music), lowdelay (the least delay).',
      },
    },
    liveParams: [],
    rtp: {
      encodingName: 'OPUS',
      clockRate: 48000,
      // RFC 7587: Opus is always described as two channels at 48 kHz, whatever it carries.
      channels: 2,
      payloader: (_ctx, name, pt) => element('rtpopuspay', { name, pt }),
      depayloader: () => 'rtpopusdepay',
    },
    encoder(encoding, ctx) {
      const name = ctx.name('aenc');
      const params = encoding.params ?? {};
      return { description: opus(name, params.opus_bitrate ?? DEFAULT_BITRATE, params.opus_application), element: name };
    },
    liveChange: () => [],
    macro: {
      tag: 'opus',
      attributes: { bitrate: { min: 6, max: 510, default: 32 } },
      expand: (attrs, ctx) => macro(ctx.name('opus'), attrs.bitrate * 1000),
    },
  });
};
