/**
 * The simple-mode audio chain (design §4), pure: audio spec → description text up to raw audio in the audio codec's
 * own format (CodecPlugin.rawAudio), which its encoder then takes as it is. Golden tests: test/audio/chain.test.ts,
 * test/unit/compose.test.ts.
 *
 *   source (the stream's decoded audio | alsasrc device | audiotestsrc wave)
 *   → volume (only when set) → 200 Hz high-pass (noise_filter) → webrtcdsp (noise_suppression, auto_gain_control)
 *   → the codec's rate, channels and format
 *
 * Test sources skip the filters (spec), not the volume. webrtcdsp (findings §6) takes S16LE interleaved at 8, 16,
 * 32 or 48 kHz in 10 ms chunks; it runs at the lowest of those that holds the codec's rate (8 kHz for a narrow-band
 * speech codec, 48 kHz for a full-band one), with the codec's channels, so the filters neither narrow a wide-band
 * codec's audio nor cost a speech codec more than it codes; audioresample then takes it to the codec's own rate.
 * Its echo canceller must be off (on, it wants a webrtcechoprobe), its own ~80 Hz high-pass is off (the 200 Hz one
 * replaces it), and it reads its properties only at negotiation: nothing here changes live.
 */
import { element, rawAudioCaps, type AudioSpec, type ComposeContext, type RawAudioFormat } from '../sdk';

/** noise_suppression_level 1..4 onto webrtcdsp's enum (the spec's "aggressive" is very-high). */
export const NS_LEVELS = ['low', 'moderate', 'high', 'very-high'] as const;

export const HIGH_PASS_HZ = 200;

/** The rates webrtcdsp takes (gst-inspect-1.0 webrtcdsp), ascending. */
export const DSP_RATES = [8000, 16000, 32000, 48000] as const;

/** The rate webrtcdsp runs at for a codec of this rate: the lowest that holds it, else its highest. */
export function dspRate(codecRate: number): number {
  return DSP_RATES.find((r) => r >= codecRate) ?? DSP_RATES[DSP_RATES.length - 1];
}

/**
 * ALSA PCM names accepted in audio.device (docs/audio.md has the grammar): a bare `default`, `sysdefault`, `null`,
 * `pulse` or `pipewire`, or a capture-capable plugin with a card and optional device and subdevice, by position
 * (`hw:1,0`, `hw:1,0,2`, `plughw:CARD,0`) or by key (`sysdefault:CARD=x`, `hw:CARD=x,DEV=0,SUBDEV=1`). Cards are
 * an index 0–31 or an ALSA card id (a letter, then up to 14 letters, digits or `_`); devices 0–31.
 */
const NUM = '(?:[0-9]|[12][0-9]|3[01])';
const CARD = `(?:${NUM}|[A-Za-z][A-Za-z0-9_]{0,14})`;
const POSITIONAL = `${CARD}(?:,${NUM}(?:,${NUM})?)?`;
const KEYED = `CARD=${CARD}(?:,DEV=${NUM}(?:,SUBDEV=${NUM})?)?`;
export const ALSA_DEVICE_PATTERN = `^(?:(?:default|sysdefault|null|pulse|pipewire)|(?:hw|plughw|dsnoop|sysdefault|default|front):(?:${POSITIONAL}|${KEYED}))$`;
const ALSA_DEVICE = new RegExp(ALSA_DEVICE_PATTERN);

export function isAlsaDevice(device: string): boolean {
  return ALSA_DEVICE.test(device);
}

/**
 * The chain from the audio source through the filters, before the conversion to the codec's format (audioToCodec).
 * `format` is the codec's rawAudio, which sets the filters' rate and channels. `stream` is the video source's own
 * audio (SourceFragment.audio), required when audio.source is stream.
 */
export function audioChain(audio: AudioSpec, ctx: ComposeContext, format: RawAudioFormat, stream?: string): string {
  return chainParts(audio, ctx, format, stream).join(' ! ');
}

/** The whole chain: audioChain, then the codec's own rate, channels and format, what its encoder takes. */
export function audioToCodec(audio: AudioSpec, ctx: ComposeContext, format: RawAudioFormat, stream?: string): string {
  const parts = chainParts(audio, ctx, format, stream);
  // The chain may already end in a conversion (no filter, or the high-pass's audioconvert): one is enough.
  const last = parts.at(-1);
  if (last !== 'audioresample') parts.push(...(last === 'audioconvert' ? [] : ['audioconvert']), 'audioresample');
  parts.push(rawAudioCaps(format));
  return parts.join(' ! ');
}

function chainParts(audio: AudioSpec, ctx: ComposeContext, format: RawAudioFormat, stream?: string): string[] {
  const parts: string[] = [];
  if (audio.source === 'test') {
    parts.push(element('audiotestsrc', { name: ctx.name('asrc'), wave: audio.test_wave, 'is-live': true }));
  } else if (audio.source === 'local') {
    if (!audio.device) throw new Error('audio.device is required when audio.source is local');
    parts.push(element('alsasrc', { name: ctx.name('asrc'), device: audio.device }));
  } else {
    if (!stream) throw new Error('the source gives no audio stream');
    parts.push(stream);
  }
  // A thread of its own: a demuxer's audio pad must never wait on the audio filters, nor the video on them.
  parts.push('queue', 'audioconvert', 'audioresample');
  if (audio.volume !== undefined) parts.push(element('volume', { name: ctx.name('avolume'), volume: audio.volume }));
  const filters = audio.source !== 'test';
  if (filters && audio.noise_filter) {
    parts.push(element('audiocheblimit', { name: ctx.name('ahighpass'), mode: 'high-pass', cutoff: HIGH_PASS_HZ, poles: 4 }), 'audioconvert');
  }
  if (filters && (audio.noise_suppression || audio.auto_gain_control)) {
    // Straight after the source's conversion (no volume, no high-pass) the resampler is there already.
    if (parts.at(-1) !== 'audioresample') parts.push('audioresample');
    parts.push(
      rawAudioCaps({ format: 'S16LE', rate: dspRate(format.rate), channels: format.channels }),
      element('webrtcdsp', {
        name: ctx.name('adsp'),
        'echo-cancel': false,
        'high-pass-filter': false,
        'noise-suppression': audio.noise_suppression,
        'noise-suppression-level': NS_LEVELS[audio.noise_suppression_level - 1] ?? 'moderate',
        // On/off only: bookworm's webrtc-audio-processing ignores the AGC's tuning (findings §6).
        'gain-control': audio.auto_gain_control,
      }),
    );
  }
  return parts;
}
