/**
 * `dash://` and its optional parameter, parsed: pure, every value checked. The URI names no host or path: the files go
 * to the pipeline's own output directory and are served by the service (README.md).
 */

export interface DashOptions {
  /** Target segment duration in seconds (dashsink target-duration; a keyframe is requested at each). */
  segment: number;
}

export const DASH_DEFAULTS: Readonly<DashOptions> = { segment: 1 };

const PARAMS = new Map<string, { key: keyof DashOptions; min: number; max: number; unit: string }>([
  ['segment', { key: 'segment', min: 1, max: 10, unit: ' (seconds)' }],
]);

const FORM = 'output.uri must be dash:// with an optional parameter ?segment=1..10 (no host or path)';

/** The options of a `dash://` URI, or the messages (naming output.uri) that say what is wrong with it. */
export function parseDashUri(uri: string): { options: DashOptions; errors: [] } | { options: null; errors: string[] } {
  const m = /^dash:\/\/\/?(?:\?(.*))?$/.exec(uri);
  if (!m) return { options: null, errors: [FORM] };
  const options = { ...DASH_DEFAULTS };
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
