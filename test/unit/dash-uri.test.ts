/** `dash://` URIs parsed (plugins/outputs/dash/uri.ts): pure, golden. */
import { describe, expect, it } from 'vitest';
import { parseDashUri } from '../../plugins/outputs/dash/uri';

describe('parseDashUri', () => {
  it.each([
    ['dash://', { segment: 1 }],
    ['dash:///', { segment: 1 }],
    ['dash://?', { segment: 1 }],
    ['dash://?segment=2', { segment: 2 }],
    ['dash:///?segment=10', { segment: 10 }],
    ['dash://?segment=01', { segment: 1 }],
  ])('%s', (uri, options) => {
    expect(parseDashUri(uri)).toEqual({ options, errors: [] });
  });

  const FORM = 'output.uri must be dash:// with an optional parameter ?segment=1..10 (no host or path)';
  const RANGE = 'output.uri: segment must be an integer from 1 to 10 (seconds)';
  it.each([
    ['dash://host', [FORM]],
    ['dash://host/live', [FORM]],
    ['dash:live', [FORM]],
    ['DASH://', [FORM]],
    ['dash://?segment=0', [RANGE]],
    ['dash://?segment=11', [RANGE]],
    ['dash://?segment=1.5', [RANGE]],
    ['dash://?segment=-1', [RANGE]],
    ['dash://?segment=', [RANGE]],
    ['dash://?segment', [RANGE]],
    ['dash://?segment=%32', [RANGE]],
    ['dash://?segment=1&segment=2', ['output.uri: parameter "segment" is given more than once']],
    ['dash://?muxer=mp4', ['output.uri: unknown parameter "muxer" (known: segment)']],
    ['dash://?__proto__=1&playlist_length=5', ['output.uri: unknown parameter "__proto__" (known: segment)', 'output.uri: unknown parameter "playlist_length" (known: segment)']],
  ])('%s is refused', (uri, errors) => {
    expect(parseDashUri(uri)).toEqual({ options: null, errors });
  });
});
