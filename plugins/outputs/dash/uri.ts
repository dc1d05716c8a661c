/**
 * `dash://` and its optional parameter, parsed: pure, every value checked. The URI names no host or path: the files go
 * to the pipeline's own output directory and are served by the service (README.md).
 */
import { parseSegmenterUri, type IntegerParam, type SegmenterUriResult } from '../../shared/segmenter-uri';

export interface DashOptions {
  /** Target segment duration in seconds (dashsink target-duration; a keyframe is requested at each). */
  segment: number;
}

export const DASH_DEFAULTS: Readonly<DashOptions> = { segment: 1 };

const PARAMS = new Map<string, IntegerParam<Extract<keyof DashOptions, string>>>([
  ['segment', { key: 'segment', min: 1, max: 10, unit: ' (seconds)' }],
]);

const FORM = 'output.uri must be dash:// with an optional parameter ?segment=1..10 (no host or path)';

/** The options of a `dash://` URI, or the messages (naming output.uri) that say what is wrong with it. */
export function parseDashUri(uri: string): SegmenterUriResult<DashOptions> {
  return parseSegmenterUri<DashOptions>(uri, 'dash', DASH_DEFAULTS, PARAMS, FORM);
}
