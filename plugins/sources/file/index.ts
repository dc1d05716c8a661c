/**
 * file:///path: a media file, played in real time and looped. Decoded, the file is read by a companion pipeline
 * (filesrc → decodebin → intervideosink) that the engine host builds again at each end of the file; the main
 * pipeline takes the frames from intervideosrc, a live source that never ends, so outputs, encoders and RTSP
 * clients see one unbroken stream (see docs/dataplane.md for why not a seek). Passed through (no encoding), the
 * file is parsed and paced by clocksync and plays once. Files are shared
 * freely: no claim. Asked for its audio (audio.source stream), the reader also hands the file's decoded audio over
 * through interaudiosink/interaudiosrc; such a file must carry audio, or the reader never ends and so never loops
 * (docs/audio.md).
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { decodedTails, definePlugin, element, filePath, parsedTails, rawAudioCaps, type RawAudioFormat, type SourcePlugin } from '../../../core/sdk';

/**
 * The audio hand-over's format when the caller names no codec's (a plugin check): 48 kHz, the most the core's audio
 * filters take, so nothing is narrowed.
 */
const HAND_OVER: RawAudioFormat = { rate: 48000, channels: 2, format: 'S16LE' };

export default definePlugin<SourcePlugin>({
  kind: 'source',
  name: 'file',
  version: '1.0.0',
  description: 'Media file, looped (filesrc)',
  examples: { valid: ['file:///etc/os-release'], invalid: ['file:///no/such/file.mp4', 'file://relative/file.mp4'] },
  producesRawOnly: false,
  mayCarryAudio: true,
  accepts: (uri) => uri.startsWith('file://') && !uri.startsWith('file:///dev/'),
  validate(source) {
    const path = filePath(source.uri);
    if (!path) return ['source.uri must be file:///absolute/path'];
    if (!existsSync(path) || !statSync(path).isFile()) return [`source.uri file ${path} does not exist`];
    return [];
  },
  // What only the file's bytes tell, at create and PUT. A binary file that is not media is found only when the
  // pipeline starts (typefind fails): telling every container from every other binary needs GStreamer's typefinders.
  present(source) {
    const path = filePath(source.uri)!;
    const why = unreadable(path);
    return why ? [`source.uri file ${path} ${why}`] : [];
  },
  claims: () => [],
  fragment(source, ctx, { decode, audio, audioFormat }) {
    const location = filePath(source.uri)!;
    if (!decode) {
      const src = element('filesrc', { name: ctx.name('src'), location });
      const parsed = parsedTails(ctx);
      return { description: `${src} ! ${parsed.video} ! ${element('clocksync', { name: ctx.name('pace') })}`, kind: 'encoded', codec: null, finite: true, klv: parsed.klv };
    }
    // Inter channels are per process, and each pipeline has its own engine host: the element name is unique enough.
    const channel = ctx.name('fileloop');
    // A file's KLV (an MPEG-TS recording's) comes out of the reader's decodebin, in the companion.
    const tails = decodedTails(ctx, Boolean(audio), true);
    let reader = [
      element('filesrc', { name: ctx.name('src'), location }),
      tails.video,
      'videoconvert',
      // intervideosink syncs to the clock, so the file plays in real time.
      element('intervideosink', { name: ctx.name('loopsink'), channel }),
    ].join(' ! ');
    if (!tails.audio) return { description: element('intervideosrc', { name: channel, channel }), kind: 'raw', companion: reader, companionKlv: tails.klv };
    // The file's audio takes the same way through interaudiosink/interaudiosrc, at fixed caps on both ends: the audio
    // codec's own format (audioFormat), so the hand-over narrows nothing the codec codes. async=false: the reader
    // must reach PLAYING on its video alone. Between two plays of the file the main pipeline's interaudiosrc gives
    // silence, as the video repeats its last frame.
    const audioChannel = ctx.name('fileaudio');
    const raw = rawAudioCaps(audioFormat ?? HAND_OVER);
    reader += ` ${tails.audio} ! queue ! audioconvert ! audioresample ! ${raw} ! ${element('interaudiosink', { name: ctx.name('loopaudiosink'), channel: audioChannel, async: false })}`;
    return {
      description: element('intervideosrc', { name: channel, channel }),
      kind: 'raw',
      companion: reader,
      audio: `${element('interaudiosrc', { name: audioChannel, channel: audioChannel })} ! ${raw}`,
      companionKlv: tails.klv,
    };
  },
});

const SNIFF_BYTES = 4096;

/**
 * Why a file cannot be a media source, from its first bytes, or null. Media containers and elementary streams
 * carry binary bytes (sync and start codes, box sizes) within their first 4 KB; a file that is all printable text
 * (/etc/passwd, a playlist, a script) is not media.
 */
export function unreadable(path: string): string | null {
  const head = Buffer.alloc(SNIFF_BYTES);
  let n: number;
  try {
    const fd = openSync(path, 'r');
    try {
      n = readSync(fd, head, 0, SNIFF_BYTES, 0);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    return `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  if (n === 0) return 'is empty';
  return isText(head.subarray(0, n)) ? 'is text, not a media file' : null;
}

function isText(bytes: Buffer): boolean {
  for (const b of bytes) if (!(b === 9 || b === 10 || b === 13 || (b >= 32 && b < 127))) return false;
  return true;
}
