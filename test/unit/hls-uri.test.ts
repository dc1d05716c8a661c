/** `hls://` URIs parsed (plugins/outputs/hls/uri.ts): pure, golden. */
import { describe, expect, it } from 'vitest';
import { parseHlsUri } from '../../plugins/outputs/hls/uri';

describe('parseHlsUri', () => {
  it.each([
    ['hls://', { segment: 1, playlistLength: 5 }],
    ['hls:///', { segment: 1, playlistLength: 5 }],
    ['hls://?', { segment: 1, playlistLength: 5 }],
    ['hls://?segment=2', { segment: 2, playlistLength: 5 }],
    ['hls://?playlist_length=3&segment=10', { segment: 10, playlistLength: 3 }],
    ['hls:///?segment=1&playlist_length=20', { segment: 1, playlistLength: 20 }],
  ])('%s', (uri, options) => {
    expect(parseHlsUri(uri)).toEqual({ options, errors: [] });
  });

  const FORM = 'output.uri must be hls:// with optional parameters ?segment=1..10&playlist_length=3..20 (no host or path)';
  it.each([
    ['hls://host', [FORM]],
    ['hls://host/live', [FORM]],
    ['hls:live', [FORM]],
    ['HLS://', [FORM]],
    ['hls://?segment=0', ['output.uri: segment must be an integer from 1 to 10 (seconds)']],
    ['hls://?segment=11', ['output.uri: segment must be an integer from 1 to 10 (seconds)']],
    ['hls://?segment=1.5', ['output.uri: segment must be an integer from 1 to 10 (seconds)']],
    ['hls://?segment=', ['output.uri: segment must be an integer from 1 to 10 (seconds)']],
    ['hls://?segment', ['output.uri: segment must be an integer from 1 to 10 (seconds)']],
    ['hls://?segment=%32', ['output.uri: segment must be an integer from 1 to 10 (seconds)']],
    ['hls://?playlist_length=2', ['output.uri: playlist_length must be an integer from 3 to 20 (segments)']],
    ['hls://?segment=1&segment=2', ['output.uri: parameter "segment" is given more than once']],
    ['hls://?__proto__=1&x=2', ['output.uri: unknown parameter "__proto__" (known: segment, playlist_length)', 'output.uri: unknown parameter "x" (known: segment, playlist_length)']],
  ])('%s is refused', (uri, errors) => {
    expect(parseHlsUri(uri)).toEqual({ options: null, errors });
  });
});
