/**
 * `hls://` and its optional parameters, parsed: pure, every value checked. The URI names no host or path: the files go
 * to the pipeline's own output directory and are served by the service (README.md).
 */
import { parseSegmenterUri, type IntegerParam, type SegmenterUriResult } from '../../shared/segmenter-uri';

export interface HlsOptions {
  /** Target segment duration in seconds (hlssink2 target-duration; a keyframe is requested at each). */
  segment: number;
  /** Segments listed in the playlist (hlssink2 playlist-length). */
  playlistLength: number;
}

export const HLS_DEFAULTS: Readonly<HlsOptions> = { segment: 1, playlistLength: 5 };

const PARAMS = new Map<string, IntegerParam<Extract<keyof HlsOptions, string>>>([
  ['segment', { key: 'segment', min: 1, max: 10, unit: ' (seconds)' }],
  // RFC 8216 §6.3.3: a client starts no nearer the end than three target durations, so fewer than 3 would starve it.
  ['playlist_length', { key: 'playlistLength', min: 3, max: 20, unit: ' (segments)' }],
]);

const FORM = 'output.uri must be hls:// with optional parameters ?segment=1..10&playlist_length=3..20 (no host or path)';

/** The options of an `hls://` URI, or the messages (naming output.uri) that say what is wrong with it. */
export function parseHlsUri(uri: string): SegmenterUriResult<HlsOptions> {
  return parseSegmenterUri<HlsOptions>(uri, 'hls', HLS_DEFAULTS, PARAMS, FORM);
}
