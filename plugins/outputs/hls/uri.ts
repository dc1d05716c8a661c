/**
 * `hls://` and its optional parameters, parsed: pure, every value checked. The URI names no host or path: the files go
 * to the pipeline's own output directory and are served by the service (README.md).
 */

export interface HlsOptions {
  /** Target segment duration in seconds (hlssink2 target-duration; a keyframe is requested at each). */
  segment: number;
  /** Segments listed in the playlist (hlssink2 playlist-length). */
  playlistLength: number;
}

export const HLS_DEFAULTS: Readonly<HlsOptions> = { segment: 1, playlistLength: 5 };

const PARAMS = new Map<string, { key: keyof HlsOptions; min: number; max: number; unit: string }>([
  ['segment', { key: 'segment', min: 1, max: 10, unit: ' (seconds)' }],
  // RFC 8216 §6.3.3: a client starts no nearer the end than three target durations, so fewer than 3 would starve it.
  ['playlist_length', { key: 'playlistLength', min: 3, max: 20, unit: ' (segments)' }],
]);

const FORM = 'output.uri must be hls:// with optional parameters ?segment=1..10&playlist_length=3..20 (no host or path)';

/** The options of an `hls://` URI, or the messages (naming output.uri) that say what is wrong with it. */
export function parseHlsUri(uri: string): { options: HlsOptions; errors: [] } | { options: null; errors: string[] } {
  const m = /^hls:\/\/\/?(?:\?(.*))?$/.exec(uri);
  if (!m) return { options: null, errors: [FORM] };
  const options = { ...HLS_DEFAULTS };
  const errors: string[] = [];
  const seen = new Set<string>();
  for (const pair of m[1] ? m[1].split('&') : []) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    const param = PARAMS.get(name);
    if (!param) {
      errors.push(`output.uri: unknown parameter "${name}" (known: ${[...PARAMS.keys()].join(', ')})`);
      continue;
    }
    if (seen.has(name)) errors.push(`output.uri: parameter "${name}" is given more than once`);
    seen.add(name);
    const n = /^\d{1,3}$/.test(value) ? Number(value) : NaN;
    if (!(n >= param.min && n <= param.max)) errors.push(`output.uri: ${name} must be an integer from ${param.min} to ${param.max}${param.unit}`);
    else options[param.key] = n;
  }
  return errors.length ? { options: null, errors } : { options, errors: [] };
}
