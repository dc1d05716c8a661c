/** test://<pattern>: GStreamer's videotestsrc, live, so it paces like a camera. `test://` alone is smpte. */
import { definePlugin, element, type SourcePlugin } from '../../../core/sdk';

// The nicks of videotestsrc's `pattern` enum in 1.22.
export const PATTERNS = [
  'smpte', 'snow', 'black', 'white', 'red', 'green', 'blue', 'checkers-1', 'checkers-2', 'checkers-4', 'checkers-8',
  'circular', 'blink', 'smpte75', 'zone-plate', 'gamut', 'chroma-zone-plate', 'solid-color', 'ball', 'smpte100', 'bar',
  'pinwheel', 'spokes', 'gradient', 'colors', 'smpte-rp-219',
] as const;

function pattern(uri: string): string {
  const rest = uri.slice('test://'.length).replace(/\/$/, '');
  return rest === '' ? 'smpte' : rest;
}

export default definePlugin<SourcePlugin>({
  kind: 'source',
  name: 'test',
  version: '1.0.0',
  description: 'Test pattern source (videotestsrc)',
  producesRawOnly: true,
  mayCarryAudio: false,
  examples: { valid: ['test://', 'test://ball', 'test://smpte/'], invalid: ['test://nope', 'test://ball" ! filesink location=/tmp/x'] },
  accepts: (uri) => uri.startsWith('test://'),
  validate(source) {
    const p = pattern(source.uri);
    return (PATTERNS as readonly string[]).includes(p)
      ? []
      : [`source.uri test pattern must be one of ${PATTERNS.join(', ')}`];
  },
  claims: () => [],
  fragment(source, ctx) {
    return {
      description: element('videotestsrc', { name: ctx.name('src'), 'is-live': true, pattern: pattern(source.uri) }),
      kind: 'raw',
    };
  },
});
