/**
 * The URI of an output that writes segments into its pipeline's own directory (`hls://`, `dash://`): a scheme with no
 * host or path, and optional integer parameters, each with its range. Pure, every value checked; the messages name
 * output.uri.
 */

export interface IntegerParam<K extends string> {
  key: K;
  min: number;
  max: number;
  /** Said after the range in a message, e.g. ' (seconds)'. */
  unit: string;
}

export type SegmenterUriResult<O> = { options: O; errors: [] } | { options: null; errors: string[] };

/** Parses `<scheme>://` or `<scheme>:///` with `?name=value&…` against params; form is the message for any other shape. */
export function parseSegmenterUri<O extends object>(
  uri: string, scheme: string, defaults: Readonly<O>, params: ReadonlyMap<string, IntegerParam<Extract<keyof O, string>>>, form: string,
): SegmenterUriResult<O> {
  const prefix = `${scheme}://`;
  if (!uri.startsWith(prefix)) return { options: null, errors: [form] };
  const m = /^\/?(?:\?(.*))?$/.exec(uri.slice(prefix.length));
  if (!m) return { options: null, errors: [form] };
  const options = { ...defaults } as O;
  const errors: string[] = [];
  const seen = new Set<string>();
  for (const pair of m[1] ? m[1].split('&') : []) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    const param = params.get(name);
    if (!param) {
      errors.push(`output.uri: unknown parameter "${name}" (known: ${[...params.keys()].join(', ')})`);
      continue;
    }
    if (seen.has(name)) errors.push(`output.uri: parameter "${name}" is given more than once`);
    seen.add(name);
    const n = /^\d{1,3}$/.test(value) ? Number(value) : NaN;
    if (!(n >= param.min && n <= param.max)) errors.push(`output.uri: ${name} must be an integer from ${param.min} to ${param.max}${param.unit}`);
    else (options as Record<string, number>)[param.key] = n;
  }
  return errors.length ? { options: null, errors } : { options, errors: [] };
}
